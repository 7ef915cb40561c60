import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { echo, MAX_ECHO_LENGTH } from '../../src/errors/echo.js';
import { nodeClient } from '../support/clients.js';
import { bearer, referenceApp } from '../support/reference-app.js';

/**
 * Error documents repeat at most a short prefix of what a client named (issue 27, finding 5): an
 * unknown field with a 100 KB name answered 200 KB (the name in `detail` and in the pointer), and a
 * 14 000-character query parameter name 28 KB.
 */
describe('error documents echo a bounded prefix of client-supplied names', () => {
  it('a 100 KB unknown field name, a 14 000-character parameter name, a long member: answers under 2 KB', async () => {
    const client = await nodeClient(referenceApp().app);
    try {
      const token = await bearer('27', 'standards:read standards:write');
      const long = 'n'.repeat(100_000);
      const cases = [
        {
          method: 'POST',
          path: '/api/v1/standards/',
          body: JSON.stringify({
            data: { type: 'standards', attributes: { code: 'A', name: 'b', [long]: 1 } },
          }),
          pointer: '/data/attributes',
        },
        {
          method: 'POST',
          path: '/api/v1/standards/',
          body: JSON.stringify({
            data: { type: 'standards', attributes: { code: 'A', name: 'b' }, [long]: 1 },
          }),
          pointer: '/data',
        },
        {
          method: 'POST',
          path: '/api/v1/standards/',
          body: JSON.stringify({
            [long]: 1,
            data: { type: 'standards', attributes: { code: 'A', name: 'b' } },
          }),
          pointer: '',
        },
      ];
      for (const { method, path, body, pointer } of cases) {
        const response = await client.request(method, path, {
          headers: {
            authorization: token,
            'content-type': 'application/vnd.api+json',
            'idempotency-key': `"echo-${pointer.length}"`,
          },
          body,
        });
        expect(response.status).toBe(400);
        expect(response.text.length).toBeLessThan(2048);
        const error = response.body.errors[0];
        expect(error.code).toBe('unknown-field');
        expect(error.source.pointer).toBe(pointer);
        expect(error.detail).toContain(`"${'n'.repeat(MAX_ECHO_LENGTH)}…"`);
      }
      const query = await client.request('GET', `/books?${'q'.repeat(14_000)}=1`);
      expect(query.status).toBe(400);
      expect(query.text.length).toBeLessThan(2048);
      expect(query.body.errors[0].source.parameter).toBe(`${'q'.repeat(MAX_ECHO_LENGTH)}…`);
    } finally {
      await client.close();
    }
  });

  it('short names are repeated whole, in the detail and the pointer', async () => {
    const client = await nodeClient(referenceApp().app);
    try {
      const token = await bearer('27', 'standards:read standards:write');
      const response = await client.request('POST', '/api/v1/standards/', {
        headers: {
          authorization: token,
          'content-type': 'application/vnd.api+json',
          'idempotency-key': '"echo-short"',
        },
        body: JSON.stringify({
          data: { type: 'standards', attributes: { code: 'A', name: 'b', colour: 1 } },
        }),
      });
      expect(response.body.errors[0]).toMatchObject({
        detail: '"colour" is not a known field.',
        source: { pointer: '/data/attributes/colour' },
      });
    } finally {
      await client.close();
    }
  });

  test.prop([fc.string({ unit: 'binary', maxLength: 120 })])(
    'echo keeps a whole short text, else a prefix of at most 40 code units that splits no pair, then …',
    (text) => {
      const shown = echo(text);
      if (text.length <= MAX_ECHO_LENGTH) expect(shown).toBe(text);
      else {
        const prefix = shown.slice(0, -1);
        expect(shown.endsWith('…')).toBe(true);
        expect(text.startsWith(prefix)).toBe(true);
        expect(prefix.length).toBeGreaterThanOrEqual(MAX_ECHO_LENGTH - 1);
        expect(prefix.length).toBeLessThanOrEqual(MAX_ECHO_LENGTH);
        // No high surrogate left without its pair at the cut.
        expect(/[\uD800-\uDBFF]$/.test(prefix) && /^[\uDC00-\uDFFF]/.test(text.slice(prefix.length))).toBe(
          false,
        );
      }
    },
  );
});
