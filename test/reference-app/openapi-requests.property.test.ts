import { fc, test } from '@fast-check/vitest';
import { beforeAll, describe, expect } from 'vitest';
import { toFetchHandler } from '../../src/adapters/fetch.js';
import type { OpenApiDocument } from '../../src/openapi/index.js';
import { conformanceChecker, fetchTarget, requestArbitrary } from '../../src/testing/index.js';
import { bearer, referenceApp } from '../support/reference-app.js';

/**
 * Requests drawn from the app's own OpenAPI document, valid and with one part broken, for a user with
 * every scope: each answer is one the document declares (status, body schema, required headers), a
 * valid request is never refused as invalid, an invalid one always is (4xx), and nothing is a 5xx.
 */
describe('the reference app answers what its OpenAPI document says', () => {
  const { app } = referenceApp();
  const target = fetchTarget((request) => toFetchHandler(app)(request, { remoteAddress: '127.0.0.1' }));
  let document: OpenApiDocument;
  let check: ReturnType<typeof conformanceChecker>;
  let token: string;
  let validRequests: ReturnType<typeof requestArbitrary>;
  let invalidRequests: ReturnType<typeof requestArbitrary>;

  beforeAll(async () => {
    const response = await target.send({ method: 'GET', path: '/openapi.json' });
    document = JSON.parse(response.text);
    check = conformanceChecker(document);
    token = await bearer('1', 'users:read standards:read standards:write');
    // Built once: an arbitrary over the whole document takes a while to build.
    validRequests = requestArbitrary(document, { valid: true, headers: { authorization: token } });
    invalidRequests = requestArbitrary(document, { valid: false, headers: { authorization: token } });
  });

  test.prop([fc.boolean(), fc.nat()], { numRuns: 150 })(
    'for requests drawn from the document',
    async (valid, seed) => {
      const [request] = fc.sample(valid ? validRequests : invalidRequests, { seed, numRuns: 1 });
      const sent = request!;
      const response = await target.send({
        method: sent.method,
        path: sent.path,
        query: sent.query,
        headers: sent.headers,
        ...(sent.body === undefined ? {} : { body: sent.body }),
      });
      const where = `${sent.operation} ${sent.path}?${sent.query} ${sent.body ?? ''} (${sent.why ?? 'valid'}) -> ${response.status} ${response.text.slice(0, 300)}`;
      expect(response.status, where).toBeLessThan(500);
      const verdict = check({
        method: sent.method,
        path: sent.path,
        status: response.status,
        headers: response.headers,
        body: response.text,
      });
      expect(verdict.problems, where).toEqual([]);
      if (!sent.valid) expect([400, 404, 409, 415, 422], where).toContain(response.status);
      // A valid request's list-valued parameters, sent in the form the document declares (repeated),
      // are never refused (other parameters may be, for what the schema cannot say: a cursor from
      // another listing, page[after] with page[before]).
      else if (response.status === 400) {
        const refused = (JSON.parse(response.text).errors as { source?: { parameter?: string } }[]).map(
          (e) => e.source?.parameter,
        );
        for (const list of ['sort', 'filter[status]', 'fields[standards]'])
          expect(refused, where).not.toContain(list);
      }
    },
  );
});
