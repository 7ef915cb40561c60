import { readFile } from 'node:fs/promises';
import spectralCore from '@stoplight/spectral-core';
import owasp from '@stoplight/spectral-owasp-ruleset';
import spectralParsers from '@stoplight/spectral-parsers';
import * as t from 'io-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES, serveExample } from '../../examples/bookshop/serve-example.js';
import { configFromEnv } from '../../examples/reference-app/config.js';
import { type Served, serve } from '../../examples/reference-app/serve.js';
import { openApiDocument } from '../../src/openapi/index.js';
import { strictObject } from '../../src/validation/index.js';
import { referenceApp } from '../support/reference-app.js';

/**
 * The OWASP API Security ruleset (`@stoplight/spectral-owasp-ruleset`, OWASP API Security Top 10 2023)
 * on the documents the reference app and the four framework examples serve: no error. The rules set
 * aside, and where, are the ones `docs/openapi.md` names with their reason (checked below).
 */
type Rule = Record<string, unknown>;
const OWASP_RULES = (owasp as unknown as { rules: Record<string, Rule> }).rules;

/** Where a client's input is: parameters and request bodies (Spectral follows their `$ref`s). */
const REQUEST_INPUTS = ['$.paths.*.*.parameters.*', '$.paths.*.*.requestBody'];
const inRequests = (rule: string, type: string): Rule => ({
  ...OWASP_RULES[rule],
  given: REQUEST_INPUTS.map((input) => `${input}..[?(@ && @.type === "${type}")]`),
});

/** The OWASP rules set aside: off everywhere, or off on some paths only. */
const SET_ASIDE: ReadonlyArray<{ readonly rule: string; readonly paths?: readonly string[] }> = [
  { rule: 'owasp:api4:2023-string-limit' },
  { rule: 'owasp:api4:2023-array-limit' },
  { rule: 'owasp:api4:2023-integer-limit' },
  { rule: 'owasp:api4:2023-rate-limit', paths: ['/health/live', '/health/ready'] },
];

const RULESET = {
  extends: [owasp],
  rules: {
    ...Object.fromEntries(SET_ASIDE.filter((s) => s.paths === undefined).map((s) => [s.rule, 'off'])),
    // The same checks, on what a client sends.
    'owasp:api4:2023-string-limit-in-requests': inRequests('owasp:api4:2023-string-limit', 'string'),
    'owasp:api4:2023-array-limit-in-requests': inRequests('owasp:api4:2023-array-limit', 'array'),
    'owasp:api4:2023-integer-limit-in-requests': inRequests('owasp:api4:2023-integer-limit', 'integer'),
  },
  overrides: SET_ASIDE.filter((s) => s.paths !== undefined).map((s) => ({
    files: (s.paths ?? []).map((p) => `openapi.json#/paths/${p.replaceAll('~', '~0').replaceAll('/', '~1')}`),
    rules: { [s.rule]: 'off' },
  })),
};

async function owaspErrors(text: string): Promise<string[]> {
  const spectral = new spectralCore.Spectral();
  // Overrides name files relative to the ruleset's own place: the two sit side by side.
  spectral.setRuleset(new spectralCore.Ruleset(RULESET as never, { source: '/api/.spectral.json' }));
  const results = await spectral.run(
    new spectralCore.Document(text, spectralParsers.Json, '/api/openapi.json'),
  );
  return results.filter((r) => r.severity === 0).map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`);
}

describe('the OWASP API Security ruleset', () => {
  const served = new Map<string, Served>();
  beforeAll(async () => {
    served.set('reference app', await serve('node', referenceApp().app, 0));
    const config = configFromEnv({ PORT: '0' });
    for (const name of EXAMPLES) served.set(`${name} example`, await serveExample(name, config, 0));
  });
  afterAll(async () => {
    for (const server of served.values()) await server.close();
  });

  it.each(['reference app', ...EXAMPLES.map((name) => `${name} example`)])(
    'finds no error in the document the %s serves',
    async (name) => {
      const { port } = served.get(name)!;
      const text = await (await fetch(`http://127.0.0.1:${port}/openapi.json`)).text();
      expect(await owaspErrors(text)).toEqual([]);
    },
    // Spectral takes seconds on the reference app's document; this bounds a hang on a busy machine.
    120_000,
  );

  it('keeps the rules for 401, 403, 429, 500, CORS and Retry-After on', () => {
    for (const rule of [
      'owasp:api8:2023-define-error-responses-401',
      'owasp:api8:2023-define-error-responses-500',
      'owasp:api4:2023-rate-limit-responses-429',
      'owasp:api4:2023-rate-limit-retry-after',
      'owasp:api8:2023-define-cors-origin',
      'owasp:api4:2023-string-restricted',
    ]) {
      expect(OWASP_RULES[rule], rule).toBeDefined();
      expect(SET_ASIDE.map((s) => s.rule)).not.toContain(rule);
    }
  });

  it('still finds an unbounded string, array or integer a client sends', async () => {
    const document = openApiDocument(
      [
        {
          method: 'POST',
          pattern: '/notes',
          body: {
            codec: strictObject({ body: t.string, tags: t.array(t.string), stars: t.Int }),
            type: 'notes',
          },
          responses: { 201: { description: 'The note' } },
        },
      ],
      { title: 'Notes', version: '1.0.0' },
    );
    const codes = (await owaspErrors(JSON.stringify(document))).map((e) => e.split(' ')[0]);
    expect(codes).toEqual(
      expect.arrayContaining([
        'owasp:api4:2023-string-limit-in-requests',
        'owasp:api4:2023-array-limit-in-requests',
        'owasp:api4:2023-integer-limit-in-requests',
      ]),
    );
  });

  it('sets aside the rules docs/openapi.md names, where it says', async () => {
    const page = await readFile(new URL('../../docs/openapi.md', import.meta.url), 'utf8');
    const section = page.split('### Rules set aside')[1]?.split(/\n#/)[0] ?? '';
    const rows = [...section.matchAll(/^\| `(owasp:[^`]+)` \| ([^|]+) \|/gm)].map((m) => ({
      rule: m[1],
      where: m[2]!.trim(),
    }));
    expect(rows).toEqual(
      SET_ASIDE.map((s) => ({
        rule: s.rule,
        where: s.paths === undefined ? 'everywhere' : s.paths.map((p) => `\`${p}\``).join(', '),
      })),
    );
  });
});
