import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/app.js';
import { authenticate, hs256Verifier, requireAuth, signHs256Token } from '../../src/auth/index.js';
import { json } from '../../src/core/response.js';
import { defineResourceType } from '../../src/envelope/index.js';
import type { ApiResponse } from '../../src/http/types.js';
import {
  checkOwnership,
  ownedPath,
  ownershipGuard,
  selfOrScope,
  visibleToOwner,
} from '../../src/ownership/index.js';
import { requestView } from '../support/request.js';

const SECRET = 'ownership-guard-test-secret-of-32-bytes!';

interface UserRecord {
  readonly id: string;
  readonly email: string;
}
interface Project {
  readonly id: string;
  readonly userId: string;
}
interface Task {
  readonly id: string;
  readonly projectId: string;
}

/** The stores of one scenario, with a count of every load. */
function stores(users: readonly string[], projects: readonly Project[], tasks: readonly Task[]) {
  const loads = { user: 0, project: 0, task: 0 };
  const userMap = new Map(users.map((id) => [id, { id, email: `${id}@example.com` }]));
  const projectMap = new Map(projects.map((p) => [p.id, p]));
  const taskMap = new Map(tasks.map((t) => [t.id, t]));
  const user = ownedPath({
    param: 'user_id',
    noun: 'user',
    load: async (id): Promise<UserRecord | undefined> => {
      loads.user++;
      return userMap.get(id);
    },
    access: selfOrScope({ scopes: ['users:read'] }),
  });
  const project = user.child({
    param: 'project_id',
    noun: 'project',
    load: (id) => {
      loads.project++;
      return projectMap.get(id);
    },
    belongsTo: (p, owner) => p.userId === owner.id,
  });
  const task = project.child({
    param: 'task_id',
    noun: 'task',
    load: async (id) => {
      loads.task++;
      return taskMap.get(id);
    },
    belongsTo: (t, parent) => t.projectId === parent.id,
  });
  return { loads, user, project, task };
}

type Paths = ReturnType<typeof stores>;

function appFor(paths: Paths) {
  const app = createApp({ use: [authenticate({ verifier: hs256Verifier({ secret: SECRET }) })] });
  const ids = (records: readonly { id: string }[]): ApiResponse =>
    json(200, { meta: { ids: records.map((r) => r.id) } });
  app.route({
    method: 'GET',
    path: '/users/{user_id}',
    use: [ownershipGuard({ path: paths.user })],
    handler: (ctx) => ids([ctx.var.user]),
  });
  app.route({
    method: 'GET',
    path: '/users/{user_id}/projects/{project_id}',
    use: [ownershipGuard({ path: paths.project })],
    handler: (ctx) => ids([ctx.var.user, ctx.var.project]),
  });
  app.route({
    method: 'GET',
    path: '/users/{user_id}/projects/{project_id}/tasks/{task_id}',
    use: [ownershipGuard({ path: paths.task })],
    handler: (ctx) => ids([ctx.var.user, ctx.var.project, ctx.var.task]),
  });
  app.route({ method: 'GET', path: '/plain', use: [requireAuth()], handler: () => json(200, { meta: {} }) });
  return app;
}

const tokens = new Map<string, string>();
async function bearer(sub: string, scope = ''): Promise<string> {
  const cacheKey = `${sub} ${scope}`;
  let token = tokens.get(cacheKey);
  if (token === undefined) {
    token = `Bearer ${await signHs256Token(SECRET, { sub, ...(scope === '' ? {} : { scope }) })}`;
    tokens.set(cacheKey, token);
  }
  return token;
}

async function get(app: ReturnType<typeof appFor>, path: string, token?: string) {
  return app.handle(
    requestView('GET', path, token === undefined ? {} : { headers: { authorization: token } }),
  );
}

describe('ownershipGuard', () => {
  const projects: Project[] = [
    { id: 'p1', userId: 'u1' },
    { id: 'p2', userId: 'u2' },
  ];
  const tasks: Task[] = [
    { id: 't1', projectId: 'p1' },
    { id: 't2', projectId: 'p2' },
  ];
  let paths: Paths;
  let app: ReturnType<typeof appFor>;
  beforeAll(() => {
    paths = stores(['u1', 'u2'], projects, tasks);
    app = appFor(paths);
  });

  describe('when the request has no credentials', () => {
    it('answers 401 with the same challenge and body as requireAuth, loading nothing', async () => {
      const before = { ...paths.loads };
      const guarded = await get(app, '/users/u1/projects/p1');
      const plain = await get(app, '/plain');
      expect(guarded.status).toBe(401);
      expect(guarded.headers['www-authenticate']).toBe('Bearer realm="api"');
      expect(guarded.json).toEqual(plain.json);
      expect(paths.loads).toEqual(before);
    });

    it('uses the configured realm', async () => {
      const local = stores(['u1'], [], []);
      const realmApp = createApp();
      realmApp.route({
        method: 'GET',
        path: '/users/{user_id}',
        use: [ownershipGuard({ path: local.user, realm: 'accounts' })],
        handler: () => json(200, { meta: {} }),
      });
      const response = await get(realmApp, '/users/u1');
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="accounts"');
    });
  });

  describe('when the principal may not access the parent', () => {
    it('answers 403 whether or not the parent exists, before loading it', async () => {
      const before = { ...paths.loads };
      const existing = await get(app, '/users/u2/projects/p2', await bearer('u1'));
      const missing = await get(app, '/users/u9/projects/p2', await bearer('u1'));
      expect(existing.status).toBe(403);
      expect(existing.json).toEqual(missing.json);
      expect(existing.json).toEqual({
        errors: [
          { status: '403', code: 'forbidden', title: 'Forbidden', detail: 'You may not access this user.' },
        ],
      });
      expect(paths.loads).toEqual(before);
    });
  });

  describe('when the principal is the parent itself or holds a granting scope', () => {
    it('hands the loaded records to the handler, each loaded once', async () => {
      const before = { ...paths.loads };
      const response = await get(app, '/users/u1/projects/p1/tasks/t1', await bearer('u1'));
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ meta: { ids: ['u1', 'p1', 't1'] } });
      expect(paths.loads).toEqual({
        user: before.user + 1,
        project: before.project + 1,
        task: before.task + 1,
      });
    });

    it('lets a users:read token read another user’s nested records', async () => {
      const response = await get(app, '/users/u2/projects/p2/tasks/t2', await bearer('admin', 'users:read'));
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ meta: { ids: ['u2', 'p2', 't2'] } });
    });
  });

  describe('when a child is absent or belongs to another parent', () => {
    it('answers the same 404, headers and body shape, for both', async () => {
      const token = await bearer('admin', 'users:read');
      // p2 exists but belongs to u2; p3 does not exist at all.
      const foreign = await get(app, '/users/u1/projects/p2', token);
      const absent = await get(app, '/users/u1/projects/p3', token);
      expect(foreign.status).toBe(404);
      expect(absent.status).toBe(404);
      expect(Object.keys(foreign.headers).sort()).toEqual(Object.keys(absent.headers).sort());
      const normalize = (body: unknown) => JSON.stringify(body).replace(/p\d/g, '<id>');
      expect(normalize(foreign.json)).toBe(normalize(absent.json));
      expect(foreign.json).toEqual({
        errors: [
          { status: '404', code: 'not-found', title: 'Not Found', detail: 'No project with id "p2".' },
        ],
      });
    });

    it('checks ownership at every level: a task of another project is 404 even under an owned project', async () => {
      const response = await get(app, '/users/u1/projects/p1/tasks/t2', await bearer('u1'));
      expect(response.status).toBe(404);
      expect(response.json).toMatchObject({ errors: [{ detail: 'No task with id "t2".' }] });
    });

    it('treats a loader answering null as absent', async () => {
      const path = ownedPath({ param: 'user_id', load: () => null as UserRecord | null, access: () => true });
      const result = await checkOwnership(
        path,
        { sub: 'u1', scopes: new Set(), claims: {} },
        { user_id: 'u1' },
      );
      expect(result).toEqual({ outcome: 'not-found', status: 404, level: 0, noun: 'resource', id: 'u1' });
    });
  });

  describe('when a loader or the access rule answers with a thenable that is not a promise', () => {
    // What `await` waits for, the guard waits for: a thenable is never taken for the record itself.
    const later = <T>(value: T): PromiseLike<T> => ({
      // biome-ignore lint/suspicious/noThenProperty: a thenable from another promise library
      then: (onFulfilled, onRejected) => Promise.resolve(value).then(onFulfilled, onRejected),
    });
    const principal = { sub: 'u1', scopes: new Set<string>(), claims: {} };

    it('waits for it: absent stays absent, present is the settled record', async () => {
      const path = ownedPath({
        param: 'user_id',
        load: (id) => later(id === 'u1' ? { id } : undefined) as unknown as { id: string },
        access: () => later(true) as unknown as boolean,
      });
      expect(await checkOwnership(path, principal, { user_id: 'u1' })).toEqual({
        outcome: 'allow',
        records: [{ id: 'u1' }],
      });
      expect(await checkOwnership(path, principal, { user_id: 'u9' })).toMatchObject({
        outcome: 'not-found',
        id: 'u9',
      });
    });

    it('refuses when the access rule settles to anything but true', async () => {
      const path = ownedPath({
        param: 'user_id',
        load: (id) => ({ id }),
        access: () => later('yes') as unknown as boolean,
      });
      expect(await checkOwnership(path, principal, { user_id: 'u1' })).toEqual({
        outcome: 'forbidden',
        status: 403,
      });
    });
  });

  describe('when the route is wired wrongly', () => {
    it('does not compile when a handler reads a record its route does not load', () => {
      createApp().route({
        method: 'GET',
        path: '/users/{user_id}',
        // @ts-expect-error: no ownershipGuard on this route, so no `ctx.var.user`
        handler: (ctx) => json(200, { meta: { id: ctx.var.user.id } }),
      });
    });

    it('does not compile when the route lacks a parameter of the path', () => {
      const local = stores([], [], []);
      const typed = createApp();
      typed.route({
        method: 'GET',
        path: '/accounts/{account_id}',
        // @ts-expect-error the guard needs {user_id}
        use: [ownershipGuard({ path: local.user })],
        handler: () => json(200, { meta: {} }),
      });
      expect(typeof ownershipGuard({ path: local.user })).toBe('function');
    });
  });

  describe('when configured wrongly', () => {
    it('throws a TypeError at start-up', () => {
      const load = () => undefined;
      const access = () => true;
      expect(() => ownedPath({ param: 'bad-name', load, access })).toThrow(TypeError);
      expect(() => ownedPath({ param: 'id', load, access: undefined as unknown as typeof access })).toThrow(
        TypeError,
      );
      const parent = ownedPath({ param: 'id', load, access });
      expect(() =>
        parent.child({ param: 'order_id', load, belongsTo: undefined as unknown as () => boolean }),
      ).toThrow(/belongsTo is required/);
      expect(() => parent.child({ param: 'id', load, belongsTo: () => true })).toThrow(/already uses/);
      expect(() => selfOrScope({ scopes: ['has space'] })).toThrow(TypeError);
      expect(() => ownershipGuard({ path: parent, realm: 'quo"te' })).toThrow(TypeError);
    });
  });
});

describe('selfOrScope', () => {
  const rule = selfOrScope({ scopes: ['users:read', 'users:admin'] });
  const principal = (sub: string, ...scopes: string[]) => ({ sub, scopes: new Set(scopes), claims: {} });
  it('grants the user themself', () => expect(rule(principal('7'), '7', {})).toBe(true));
  it('grants any listed scope', () => expect(rule(principal('1', 'users:admin'), '7', {})).toBe(true));
  it('refuses anyone else', () => expect(rule(principal('1', 'orders:read'), '7', {})).toBe(false));
});

describe('visibleToOwner with defineResourceType', () => {
  const users = defineResourceType<UserRecord, 'email'>({
    type: 'users',
    id: (u) => u.id,
    attributes: ['email'],
    visibleTo: { email: visibleToOwner((u) => u.id) },
  });
  const ada = { id: '1', email: 'ada@example.com' };
  it('shows the attribute to the owner', () => {
    expect(users.toResource(ada, { sub: '1', scopes: new Set(), claims: {} }).attributes).toEqual({
      email: 'ada@example.com',
    });
  });
  it('hides it from everyone else, scoped readers and anonymous callers included', () => {
    expect(
      users.toResource(ada, { sub: '2', scopes: new Set(['users:read']), claims: {} }).attributes,
    ).toEqual({});
    expect(users.toResource(ada).attributes).toEqual({});
  });
});

/** A random scenario: who exists, who owns what, who asks, and for which path. */
const USERS = ['u1', 'u2', 'u3'] as const;
const scenario = fc.record({
  users: fc.subarray([...USERS]),
  projects: fc.array(fc.constantFrom(...USERS), { maxLength: 5 }),
  tasks: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 6 }),
  principal: fc.option(
    fc.record({
      sub: fc.constantFrom('u1', 'u2', 'u3', 'x'),
      scope: fc.constantFrom('', 'users:read', 'other'),
    }),
  ),
  depth: fc.integer({ min: 1, max: 3 }),
  userId: fc.constantFrom('u1', 'u2', 'u3', 'u4'),
  projectIndex: fc.integer({ min: 0, max: 6 }),
  taskIndex: fc.integer({ min: 0, max: 7 }),
});

describe('property: the guard over random owners, records and principals (depth 1 to 3)', () => {
  it('succeeds iff the principal may access the parent and each child belongs to its parent; else exactly 401/403/404', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const projects = s.projects.map((userId, i) => ({ id: `p${i}`, userId }));
        const tasks = s.tasks.map((projectIndex, i) => ({ id: `t${i}`, projectId: `p${projectIndex}` }));
        const paths = stores(s.users, projects, tasks);
        const app = appFor(paths);
        const projectId = `p${s.projectIndex}`;
        const taskId = `t${s.taskIndex}`;
        const url = [`/users/${s.userId}`, `/projects/${projectId}`, `/tasks/${taskId}`]
          .slice(0, s.depth)
          .join('');
        const token = s.principal === null ? undefined : await bearer(s.principal.sub, s.principal.scope);
        const response = await get(app, url, token);

        // The model, in the documented order.
        const project = projects.find((p) => p.id === projectId);
        const task = tasks.find((t) => t.id === taskId);
        const levelOk = [
          (s.users as readonly string[]).includes(s.userId),
          project !== undefined && project.userId === s.userId,
          task !== undefined && task.projectId === projectId,
        ].slice(0, s.depth);
        const ids = [s.userId, projectId, taskId];
        const nouns = ['user', 'project', 'task'];
        const firstBad = levelOk.indexOf(false);
        const mayAccess =
          s.principal !== null && (s.principal.sub === s.userId || s.principal.scope === 'users:read');

        if (s.principal === null) expect(response.status).toBe(401);
        else if (!mayAccess) expect(response.status).toBe(403);
        else if (firstBad !== -1) {
          expect(response.status).toBe(404);
          // A function of the noun and the id asked for only: absent and foreign look the same.
          expect(response.json).toEqual({
            errors: [
              {
                status: '404',
                code: 'not-found',
                title: 'Not Found',
                detail: `No ${nouns[firstBad]} with id "${ids[firstBad]}".`,
              },
            ],
          });
        } else {
          expect(response.status).toBe(200);
          expect(response.json).toEqual({ meta: { ids: ids.slice(0, s.depth) } });
        }

        // Each record is loaded at most once, and only once every level above it passed.
        const reached = !mayAccess ? 0 : firstBad === -1 ? s.depth : firstBad + 1;
        expect([paths.loads.user, paths.loads.project, paths.loads.task]).toEqual(
          [0, 1, 2].map((level) => (level < reached ? 1 : 0)),
        );
      }),
      { numRuns: 300 },
    );
  });
});
