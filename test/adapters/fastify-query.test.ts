/**
 * QUERY in Fastify's own router: Fastify refuses a QUERY without `Content-Type` itself, with its own
 * 400, before any handler. A described QUERY route answers it as on every other adapter: the
 * library's 400 `missing-content-type` document, with `Accept-Query` and the primitives' headers. A
 * real server on loopback, asked from curl.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Fastify, { type FastifyInstance } from 'fastify';
import * as t from 'io-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as fa from '../../src/adapters/fastify/index.js';
import { json } from '../../src/core/response.js';
import { securityHeaders } from '../../src/security/index.js';

const run = promisify(execFile);
let server: FastifyInstance;
let url = '';

beforeAll(async () => {
  server = Fastify();
  await server.register(fa.conventions({ use: [securityHeaders()] }));
  fa.describedRoutes(server).route({
    method: 'QUERY',
    path: '/books',
    body: { codec: t.type({ title: t.string }), type: 'books' },
    handler: (ctx) => json(200, { meta: { title: ctx.body.title } }),
  });
  url = `${await server.listen({ port: 0, host: '127.0.0.1' })}/books`;
});
afterAll(() => server.close());

async function curl(...args: string[]) {
  const { stdout } = await run('curl', ['-s', '-i', '-X', 'QUERY', url, ...args]);
  const [head = '', body = ''] = stdout.split('\r\n\r\n');
  const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1]?.trim();
  return { status: Number(head.split(' ')[1]), field, body };
}

describe('a described QUERY route in Fastify', () => {
  it("answers a QUERY without Content-Type with the library's 400, not Fastify's", async () => {
    for (const answer of [await curl(), await curl('-H', 'Content-Type:', '-d', '{"title":"x"}')]) {
      expect(answer.status).toBe(400);
      expect(answer.field('accept-query')).toBe('application/json');
      expect(answer.field('x-content-type-options')).toBe('nosniff');
      expect(JSON.parse(answer.body).errors[0]).toMatchObject({
        code: 'missing-content-type',
        source: { header: 'Content-Type' },
      });
    }
  });

  it('answers 200 with Content-Type: application/json, and 415 for another media type', async () => {
    const ok = await curl('-H', 'Content-Type: application/json', '-d', '{"title":"x"}');
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ meta: { title: 'x' } });
    const refused = await curl('-H', 'Content-Type: text/plain', '-d', 'x');
    expect(refused.status).toBe(415);
    expect(refused.field('accept-query')).toBe('application/json');
  });
});
