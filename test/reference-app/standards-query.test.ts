import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { fc, test } from '@fast-check/vitest';
import { parseList } from 'structured-headers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, type Served, serve } from '../../examples/reference-app/serve.js';
import {
  MemoryStandardStore,
  STANDARD_STATUSES,
} from '../../examples/reference-app/standards/standard-store.js';
import { send } from '../core/send.js';
import { bearer, referenceApp, referenceAppOnEveryAdapter } from '../support/reference-app.js';

const run = promisify(execFile);
const BASE = '/api/v1/standards';

/** A store holding standards published on chosen days, created through its own clock. */
async function seeded(
  rows: readonly { code: string; status: (typeof STANDARD_STATUSES)[number]; day: string }[],
) {
  let clock = new Date('2020-01-01T00:00:00Z');
  let id = 0;
  const store = new MemoryStandardStore(
    () => clock,
    () => `00000000-0000-4000-8000-${String(++id).padStart(12, '0')}`,
  );
  for (const row of rows) {
    clock = new Date(`${row.day}T12:00:00Z`);
    await store.create({ code: row.code, name: `Standard ${row.code}`, status: row.status });
  }
  return store;
}

const ROWS = [
  { code: 'ISO-8601', status: 'published', day: '2019-02-01' },
  { code: 'ISO-9001', status: 'retired', day: '2015-09-15' },
  { code: 'RFC-9110', status: 'published', day: '2022-06-06' },
  { code: 'RFC-10008', status: 'published', day: '2026-06-15' },
  { code: 'W3C-CORS', status: 'draft', day: '2024-01-01' },
] as const;

describe('QUERY /api/v1/standards through every adapter, from fetch and from curl', () => {
  const servers = new Map<string, Served>();
  let reader: string;
  let writer: string;
  beforeAll(async () => {
    reader = await bearer('1', 'standards:read');
    writer = await bearer('1', 'standards:read standards:write');
    for (const adapter of ADAPTERS) {
      const store = await seeded(ROWS);
      const { app } = referenceApp({ RATE_LIMIT_MAX: '100000' }, { standardStore: store });
      servers.set(adapter, await serve(adapter, app, 0));
    }
  });
  afterAll(async () => {
    for (const served of servers.values()) await served.close();
  });

  const filter = JSON.stringify({
    status: ['published'],
    codePrefix: ['RFC-'],
    publishedAt: { from: '2022-01-01' },
  });

  it.each(ADAPTERS)(
    '%s: 200 with Accept-Query and Location, 304 on its ETag, 415, no Idempotency-Key',
    async (adapter) => {
      const base = `http://127.0.0.1:${servers.get(adapter)!.port}`;
      const headers = { authorization: reader, 'content-type': 'application/json' };
      const answer = await fetch(`${base}${BASE}`, { method: 'QUERY', headers, body: filter });
      expect(answer.status).toBe(200);
      expect(parseList(answer.headers.get('accept-query')!).map(([item]) => String(item))).toEqual([
        'application/json',
      ]);
      const body = await answer.json();
      expect(body.data.map((s: { attributes: { code: string } }) => s.attributes.code)).toEqual([
        'RFC-10008',
        'RFC-9110',
      ]);
      expect(body.meta.total).toBe(2);
      const location = answer.headers.get('location')!;
      expect(location).toMatch(/^\/api\/v1\/standard-queries\/[A-Za-z0-9_-]+$/);
      expect(body.links.self).toBe(location);
      const etag = answer.headers.get('etag')!;
      expect(answer.headers.get('cache-control')).toBe('private, no-cache');

      const again = await fetch(`${base}${BASE}`, {
        method: 'QUERY',
        headers: { ...headers, 'if-none-match': etag },
        body: filter,
      });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');

      // The equivalent resource: a GET runs the same query (RFC 10008 section 2.4).
      const equivalent = await fetch(`${base}${location}`, { headers: { authorization: reader } });
      expect(equivalent.status).toBe(200);
      expect((await equivalent.json()).data).toEqual(body.data);

      const wrong = await fetch(`${base}${BASE}`, {
        method: 'QUERY',
        headers: { ...headers, 'content-type': 'text/plain' },
        body: 'RFC',
      });
      expect(wrong.status).toBe(415);
      expect(wrong.headers.get('accept-query')).toBe('application/json');

      // POST on the same path requires an Idempotency-Key; QUERY never asks for one.
      const post = await fetch(`${base}${BASE}`, {
        method: 'POST',
        headers: { ...headers, authorization: writer },
        body: '{"code":"X-1","name":"x"}',
      });
      expect(post.status).toBe(400);
      expect((await post.json()).errors[0].code).toBe('idempotency-key-missing');

      const options = await fetch(`${base}${BASE}`, { method: 'OPTIONS' });
      expect(options.headers.get('allow')).toBe('GET, HEAD, OPTIONS, POST, QUERY');
    },
  );

  it.each(ADAPTERS)(
    '%s: from curl, 200 then 304 on the ETag, 415 for another media type',
    async (adapter) => {
      const url = `http://127.0.0.1:${servers.get(adapter)!.port}${BASE}`;
      const curl = async (...args: string[]) => {
        const { stdout } = await run('curl', [
          '-s',
          '-i',
          '-X',
          'QUERY',
          url,
          '-H',
          `Authorization: ${reader}`,
          ...args,
        ]);
        const [head = ''] = stdout.split('\r\n\r\n');
        const status = Number(head.split(' ')[1]);
        const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1]?.trim();
        return { status, field };
      };
      const answer = await curl('-H', 'Content-Type: application/json', '-d', filter);
      expect(answer.status).toBe(200);
      expect(answer.field('accept-query')).toBe('application/json');
      const etag = answer.field('etag')!;
      expect(
        (await curl('-H', 'Content-Type: application/json', '-H', `If-None-Match: ${etag}`, '-d', filter))
          .status,
      ).toBe(304);
      expect((await curl('-H', 'Content-Type: application/sql', '-d', 'select 1')).status).toBe(415);
    },
  );
});

/** One request written to a socket as given, and everything read back until the server closes. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
  });
}

describe('QUERY without Content-Type, on a raw socket and from curl, through every adapter', () => {
  const served = referenceAppOnEveryAdapter();
  let reader: string;
  beforeAll(async () => {
    reader = await bearer('1', 'standards:read');
  });

  it.each(ADAPTERS)(
    "%s: the library's 400 missing-content-type error document, with Accept-Query",
    async (adapter) => {
      const port = served.port(adapter);
      const content = '{"status":["draft"]}';
      // RFC 10008 section 2.1: a QUERY's content is read by its Content-Type, so one without is refused.
      const raw = await rawExchange(
        port,
        `QUERY ${BASE} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${reader}\r\nContent-Length: ${content.length}\r\nConnection: close\r\n\r\n${content}`,
      );
      const [head = '', body = ''] = raw.split('\r\n\r\n');
      expect(head.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
      expect(head).toMatch(/^accept-query: application\/json$/im);
      expect(head).toMatch(/^content-type: application\/vnd\.api\+json$/im);
      expect(JSON.parse(body).errors[0]).toMatchObject({
        code: 'missing-content-type',
        source: { header: 'Content-Type' },
      });

      const { stdout } = await run('curl', [
        '-s',
        '-i',
        '-X',
        'QUERY',
        `http://127.0.0.1:${port}${BASE}`,
        '-H',
        `Authorization: ${reader}`,
        '-H',
        'Accept: application/problem+json',
      ]);
      const [curlHead = '', curlBody = ''] = stdout.split('\r\n\r\n');
      expect(curlHead.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
      expect(JSON.parse(curlBody)).toMatchObject({ status: 400, code: 'missing-content-type' });
    },
  );
});

/** An independent model of the filter: read straight off the seeded rows, as the docs state it. */
function model(
  rows: readonly { code: string; status: string; day: string }[],
  filter: { status?: string[]; codePrefix?: string[]; publishedAt?: { from?: string; to?: string } },
): string[] {
  const out: string[] = [];
  for (const row of rows) {
    let ok = true;
    if (filter.status && filter.status.indexOf(row.status) < 0) ok = false;
    if (filter.codePrefix) {
      let any = false;
      for (const p of filter.codePrefix) if (row.code.slice(0, p.length) === p) any = true;
      if (!any) ok = false;
    }
    if (filter.publishedAt) {
      // Only a standard created published has a publication day here.
      if (row.status !== 'published') ok = false;
      else {
        if (filter.publishedAt.from && row.day < filter.publishedAt.from) ok = false;
        if (filter.publishedAt.to && row.day > filter.publishedAt.to) ok = false;
      }
    }
    if (ok) out.push(row.code);
  }
  return out.sort();
}

describe('the filter of QUERY /api/v1/standards', () => {
  const day = fc
    .date({
      min: new Date('2010-01-01T00:00:00Z'),
      max: new Date('2029-12-31T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString().slice(0, 10));
  const code = fc
    .tuple(
      fc.constantFrom('ISO', 'RFC', 'IEC', 'W3C'),
      fc.constantFrom('-', '.'),
      fc.integer({ min: 1, max: 99999 }),
    )
    .map(([org, sep, n]) => `${org}${sep}${n}`);
  const rows = fc.uniqueArray(fc.record({ code, status: fc.constantFrom(...STANDARD_STATUSES), day }), {
    selector: (r) => r.code,
    maxLength: 25,
  });
  const filter = fc.record(
    {
      status: fc.uniqueArray(fc.constantFrom(...STANDARD_STATUSES), { minLength: 1, maxLength: 3 }),
      codePrefix: fc.array(fc.constantFrom('ISO', 'RFC-', 'RFC.1', 'W', 'IEC-2', 'X'), {
        minLength: 1,
        maxLength: 4,
      }),
      publishedAt: fc.record({ from: day, to: day }, { requiredKeys: [] }),
    },
    { requiredKeys: [] },
  );

  test.prop([rows, filter], { numRuns: 60 })(
    'selects what the model selects, every page of it',
    async (seedRows, query) => {
      const store = await seeded(seedRows);
      const { app } = referenceApp({}, { standardStore: store });
      const token = await bearer('1', 'standards:read');
      const expected = model(seedRows, query);
      const got: string[] = [];
      let total: number | undefined;
      for (let number = 1; number <= 10; number++) {
        const answer = await send(app, 'QUERY', BASE, {
          headers: { authorization: token, 'content-type': 'application/json' },
          body: JSON.stringify({ ...query, page: { size: 3, number } }),
        });
        expect(answer.status).toBe(200);
        total = answer.body.meta.total;
        got.push(...answer.body.data.map((s: { attributes: { code: string } }) => s.attributes.code));
        if (answer.body.links.next === undefined) break;
        // The next page's link is the GET of the equivalent resource of that page.
        const next = await send(app, 'GET', answer.body.links.next, { headers: { authorization: token } });
        expect(next.body.data.map((s: { id: string }) => s.id)).toEqual(
          (
            await send(app, 'QUERY', BASE, {
              headers: { authorization: token, 'content-type': 'application/json' },
              body: JSON.stringify({ ...query, page: { size: 3, number: number + 1 } }),
            })
          ).body.data.map((s: { id: string }) => s.id),
        );
      }
      expect(got).toEqual(expected);
      expect(total).toBe(expected.length);
    },
  );

  it('refuses a filter it cannot read with a 400 naming the member, and a made-up query id with 404', async () => {
    const { app } = referenceApp();
    const token = await bearer('1', 'standards:read');
    const headers = { authorization: token, 'content-type': 'application/json' };
    const bad = await send(app, 'QUERY', BASE, { headers, body: '{"status":["lost"],"colour":"red"}' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort()).toEqual([
      '/colour',
      '/status/0',
    ]);
    const range = await send(app, 'QUERY', BASE, { headers, body: '{"publishedAt":{"from":"2026-02-30"}}' });
    expect(range.status).toBe(400);
    for (const id of [
      'nope',
      'e30',
      Buffer.from('{"page":{"size":20,"number":1},"status":["draft"]}').toString('base64url'),
    ]) {
      expect(
        (await send(app, 'GET', `/api/v1/standard-queries/${id}`, { headers: { authorization: token } }))
          .status,
        id,
      ).toBe(404);
    }
  });
});
