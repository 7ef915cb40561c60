import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createReferenceApp } from '../../examples/reference-app/composition-root.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import { ADAPTERS, serve } from '../../examples/reference-app/serve.js';
import { CLIENT_ERROR_LOGS_PER_SECOND, clientErrorLog } from '../../src/errors/client-error-log.js';
import { bearer } from '../support/reference-app.js';
import { exchange } from './raw-http.js';

/** pino's JSON lines, kept in memory (pino writes to a plain Writable synchronously). */
function memoryStream() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

/**
 * Clients cannot write error-level logs with a stack at will (issue 27, finding 7): a
 * `Transfer-Encoding: gzip, chunked` request got a 501 logged at level 50 with the `ApiError` stack.
 */
describe('client errors are logged below error level, without a stack, at a bounded rate', () => {
  it.each(ADAPTERS)(
    '%s: a 501 for an unknown transfer coding is a warning without a stack',
    async (adapter) => {
      const { stream, records } = memoryStream();
      const app = createReferenceApp(configFromEnv({ RATE_LIMIT_MAX: '1000000' }), pino(stream));
      const served = await serve(adapter, app, 0);
      try {
        const token = await bearer('1');
        for (let i = 0; i < 3; i++) {
          const reply = await exchange(
            served.port,
            `POST /orders HTTP/1.1\r\nHost: x\r\nAuthorization: ${token}\r\nContent-Type: application/json\r\n` +
              'Transfer-Encoding: gzip, chunked\r\nConnection: close\r\n\r\n0\r\n\r\n',
          );
          expect(reply.status).toBe(501);
        }
        const logged = records();
        expect(logged.filter((r) => (r.level as number) >= 50)).toEqual([]);
        const warnings = logged.filter((r) => r.status === 501);
        expect(warnings.length).toBeGreaterThan(0);
        for (const warning of warnings) {
          expect(warning.level).toBe(40);
          expect(JSON.stringify(warning)).not.toMatch(/stack|\n\s+at /);
        }
      } finally {
        await served.close();
      }
    },
  );

  it(`logs at most ${CLIENT_ERROR_LOGS_PER_SECOND} a second, then says how many it left out`, () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = { error: () => {}, warn: (fields: Record<string, unknown>) => lines.push(fields) };
    let now = 1_000_000;
    const log = clientErrorLog(() => now);
    for (let i = 0; i < 1000; i++) log(logger, { status: 501, n: i });
    expect(lines.map((l) => l.n)).toEqual(Array.from({ length: CLIENT_ERROR_LOGS_PER_SECOND }, (_, i) => i));
    now += 999;
    log(logger, { status: 501, n: 'late' });
    expect(lines).toHaveLength(CLIENT_ERROR_LOGS_PER_SECOND);
    now += 1;
    log(logger, { status: 501, n: 'next' });
    expect(lines.at(-1)).toEqual({
      status: 501,
      n: 'next',
      omittedClientErrors: 1000 - CLIENT_ERROR_LOGS_PER_SECOND + 1,
    });
    log(logger, { status: 501, n: 'after' });
    expect(lines.at(-1)).toEqual({ status: 501, n: 'after' });
  });
});
