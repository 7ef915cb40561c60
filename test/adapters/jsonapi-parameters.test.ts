/**
 * JSON:API 1.1 "Content Negotiation" through every adapter: the reference app (`createApp`) on all
 * six, and the four framework examples, whose routes are the framework's own behind
 * `conventions(...)`. An `Accept` naming only an unsupported extension is 406, an unknown profile is
 * ignored, a JSON:API body naming an unsupported extension is 415, and each says `Vary: Accept`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES, type ExampleName, serveExample } from '../../examples/bookshop/serve-example.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import { ADAPTERS, type Served } from '../../examples/reference-app/serve.js';
import { bearer, referenceAppOnEveryAdapter } from '../support/reference-app.js';

const UNKNOWN_EXT = 'application/vnd.api+json; ext="https://example.com/unknown"';
const UNKNOWN_PROFILE = 'application/vnd.api+json; profile="https://example.com/unknown"';

function varyTokens(answer: Response): string[] {
  return (answer.headers.get('vary') ?? '').split(',').map((token) => token.trim().toLowerCase());
}

/** The answers every adapter must give to a read at `path` and a write at `writePath`. */
async function expectNegotiated(
  base: string,
  path: string,
  write: { path: string; token: string; key: string; body: string },
): Promise<void> {
  const refused = await fetch(`${base}${path}`, { headers: { accept: UNKNOWN_EXT } });
  expect(refused.status).toBe(406);
  expect(refused.headers.get('content-type')).toBe('application/vnd.api+json');
  expect(varyTokens(refused)).toContain('accept');
  expect((await refused.json()).errors[0]).toMatchObject({
    status: '406',
    code: 'not-acceptable',
    source: { header: 'Accept' },
  });

  const profiled = await fetch(`${base}${path}`, { headers: { accept: UNKNOWN_PROFILE } });
  expect(profiled.status).toBe(200);
  expect(profiled.headers.get('content-type')).toMatch(/^application\/vnd\.api\+json/);
  expect(varyTokens(profiled)).toContain('accept');

  const plain = await fetch(`${base}${path}`, { headers: { accept: 'application/vnd.api+json' } });
  expect(plain.status).toBe(200);
  // A Content-Type on a request without content describes nothing to parse: it is left alone.
  const bodiless = await fetch(`${base}${path}`, { headers: { 'content-type': UNKNOWN_EXT } });
  expect(bodiless.status).toBe(200);

  const send = (headers: Record<string, string>, key: string) =>
    fetch(`${base}${write.path}`, {
      method: 'POST',
      headers: { authorization: write.token, 'idempotency-key': key, ...headers },
      body: write.body,
    });
  const unsupported = await send({ 'content-type': UNKNOWN_EXT }, `${write.key}-ext`);
  expect(unsupported.status).toBe(415);
  expect((await unsupported.json()).errors[0].source).toEqual({ header: 'Content-Type' });

  // A write whose answer no format could make acceptable is refused before it runs.
  const unanswerable = await send(
    { 'content-type': 'application/json', accept: UNKNOWN_EXT },
    `${write.key}-accept`,
  );
  expect(unanswerable.status).toBe(406);
}

describe('JSON:API ext and profile: the reference app on every adapter', () => {
  const served = referenceAppOnEveryAdapter();
  let token: string;
  beforeAll(async () => {
    token = await bearer('1', 'standards:read standards:write');
  });

  it.each(ADAPTERS)(
    '%s: 406 for an unsupported ext, 200 for an unknown profile, 415 on a write',
    async (adapter) => {
      const base = served.base(adapter);
      await expectNegotiated(base, '/books/1', {
        path: '/api/v1/standards',
        token,
        key: `ext-${adapter}`,
        body: '{"code":"EXT-1","name":"Extensions"}',
      });
      const listed = await (
        await fetch(`${base}/api/v1/standards`, { headers: { authorization: token } })
      ).json();
      expect(
        listed.data.map((standard: { attributes: { code: string } }) => standard.attributes.code),
      ).not.toContain('EXT-1');
    },
  );
});

describe('JSON:API ext and profile: the framework examples, routes of their own behind conventions(...)', () => {
  const servers = new Map<ExampleName, Served>();
  const config = configFromEnv({ PORT: '0', RATE_LIMIT_MAX: '1000' });
  let token: string;
  beforeAll(async () => {
    token = await bearer('alice');
    for (const name of EXAMPLES) servers.set(name, await serveExample(name, config, 0));
  });
  afterAll(async () => {
    for (const served of servers.values()) await served.close();
  });

  it.each(EXAMPLES)('%s: negotiates as createApp does', async (name) => {
    const base = `http://127.0.0.1:${servers.get(name)!.port}`;
    await expectNegotiated(base, '/books', {
      path: '/orders',
      token,
      key: `ext-${name}`,
      body: '{"bookId":1,"quantity":1}',
    });
    // Neither refused write created an order.
    const order = await fetch(`${base}/orders/1`, { headers: { authorization: token } });
    expect(order.status).toBe(404);
    // A read whose route speaks only JSON:API: its representation is not sent where Accept refuses it.
    const mixed = await fetch(`${base}/books`, { headers: { accept: `${UNKNOWN_EXT}, text/html` } });
    expect(mixed.status).toBe(406);
    const missing = await fetch(`${base}/books/99`, { headers: { accept: UNKNOWN_EXT } });
    expect(missing.status).toBe(404);
  });
});
