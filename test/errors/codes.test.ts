import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { statusCode } from '../../src/errors/api-error.js';
import { codedError } from '../../src/errors/coded-error.js';
import { ERROR_CODES, type ErrorCode, type ErrorCodeEntry, isErrorCode } from '../../src/errors/codes.js';
import { DECLINED_LOAD } from '../../src/errors/render.js';
import { typeScriptFilesUnder } from '../support/source-files.js';

// The codes the library answers with, read from its source: every `codedError(status, 'code', ...)`
// (and auth's `refusal('code', ...)`, a 401), every string literal in a `code:` member, versioning's
// `refused(status, 'code')`, and the status slug of every `new ApiError(status)` that names no code
// (nor a list of `errors`, each with its own code).

const SRC = join(import.meta.dirname, '../../src');

interface Site {
  readonly code: string;
  readonly status: number | undefined;
  readonly file: string;
}

function sitesIn(file: string): Site[] {
  const text = readFileSync(file, 'utf8').replace(/^\s*(\*|\/\/).*$/gm, '');
  const name = file.slice(SRC.length + 1);
  const sites: Site[] = [];
  for (const match of text.matchAll(/\bcode:\s*(?![\s{])([^,\n}]+)/g)) {
    for (const literal of match[1]!.matchAll(/'([a-z0-9-]+)'/g)) {
      sites.push({ code: literal[1]!, status: statusBefore(text, match.index), file: name });
    }
  }
  for (const match of text.matchAll(/\bcodedError\(\s*(\d{3}|[\w.]+),\s*'([a-z0-9-]+)'/g)) {
    sites.push({ code: match[2]!, status: Number(match[1]) || undefined, file: name });
  }
  // Auth's one 401 builder: `refusal('code', ...)`.
  for (const match of text.matchAll(/\brefusal\(\s*'([a-z0-9-]+)'/g)) {
    sites.push({ code: match[1]!, status: 401, file: name });
  }
  for (const match of text.matchAll(/\brefused\(\s*(\d{3}|[\w.]+),\s*'([a-z0-9-]+)'/g)) {
    sites.push({ code: match[2]!, status: Number(match[1]) || undefined, file: name });
  }
  for (const match of text.matchAll(/new ApiError\((\d{3})(\)|,\s*\{)/g)) {
    const rest = match[2] === ')' ? '' : text.slice(match.index, text.indexOf('})', match.index));
    if (/\b(code|errors)\b/.test(rest)) continue;
    const status = Number(match[1]);
    sites.push({ code: statusCode(status), status, file: name });
  }
  // The node adapter's answers to what its parser refused: `[parser error code, status]` pairs.
  for (const match of text.matchAll(/\['[A-Z_]+', (\d{3})\]/g)) {
    const status = Number(match[1]);
    sites.push({ code: statusCode(status), status, file: name });
  }
  return sites;
}

/** The status of the `new ApiError(<status>, {` that opens the object a `code:` member is in. */
function statusBefore(text: string, index: number): number | undefined {
  const opening = text.slice(Math.max(0, index - 40), index).match(/new ApiError\((\d{3}), \{\s*$/);
  return opening === null ? undefined : Number(opening[1]);
}

const sites = typeScriptFilesUnder(SRC).flatMap(sitesIn);

describe('ERROR_CODES', () => {
  it('lists every code the source answers with, with its status', () => {
    expect(sites.length).toBeGreaterThan(50);
    for (const site of sites) {
      expect(isErrorCode(site.code), `${site.code} (${site.file}) is not in ERROR_CODES`).toBe(true);
      if (site.status !== undefined) {
        const listed: readonly number[] = ERROR_CODES[site.code as ErrorCode].status;
        expect(listed, `${site.code} is sent with ${site.status} in ${site.file}`).toContain(site.status);
      }
    }
  });

  it('lists no code the source does not answer with', () => {
    const found = new Set(sites.map((site) => site.code));
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      // A slug is also the code of a status a framework error carries through an adapter.
      const slug = entry.status.some((status) => statusCode(status) === code);
      expect(found.has(code) || slug, `${code} is listed but never sent`).toBe(true);
    }
  });

  it('is the table of docs/errors.md, code for code', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../docs/errors.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Codes'), doc.indexOf('\n## ', doc.indexOf('## Codes') + 1));
    const rows = [...section.matchAll(/^\| `([a-z0-9-]+)` +\| ([\d, ]+?) +\|/gm)].map(
      (row) => `${row[1]} ${row[2]}`,
    );
    const listed = Object.entries(ERROR_CODES).map(([code, entry]) => `${code} ${entry.status.join(', ')}`);
    expect(rows).toEqual(listed);
  });

  it('is how the library names its codes: no ApiError written with a code of its own', () => {
    for (const file of typeScriptFilesUnder(SRC)) {
      const text = readFileSync(file, 'utf8').replace(/^\s*(\*|\/\/).*$/gm, '');
      expect(text, file).not.toMatch(/new ApiError\(\s*[^,()]+,\s*\{\s*code:\s*'/);
    }
  });

  it('lists several problems through codedErrors only, each problem under a code of the catalogue', () => {
    for (const file of typeScriptFilesUnder(SRC).filter((name) => !name.endsWith('coded-error.ts'))) {
      const text = readFileSync(file, 'utf8').replace(/^\s*(\*|\/\/).*$/gm, '');
      expect(text, file).not.toMatch(/new ApiError\([^)]*\berrors\b/);
    }
  });

  it('isErrorCode answers for the list only', () => {
    expect(isErrorCode('not-found')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode('catalogue-offline')).toBe(false);
  });
});

describe('codedError', () => {
  const codes = Object.keys(ERROR_CODES) as ErrorCode[];

  test.prop([fc.constantFrom(...codes), fc.option(fc.string(), { nil: undefined })], { seed: 40 })(
    'answers with the code under each status the catalogue lists for it',
    (code, detail) => {
      for (const status of ERROR_CODES[code].status) {
        const error = codedError(status, code, detail === undefined ? {} : { detail });
        expect(error.status).toBe(status);
        expect(error.errors).toHaveLength(1);
        expect(error.errors[0]!.code).toBe(code);
        if (detail !== undefined) expect(error.errors[0]!.detail).toBe(detail);
      }
    },
  );

  test.prop([fc.constantFrom(...codes)], { seed: 40 })(
    "the renderer's declined-load codes are exactly the catalogue's marked ones, each a 503",
    (code) => {
      const entry: ErrorCodeEntry = ERROR_CODES[code];
      expect(Object.hasOwn(DECLINED_LOAD, code)).toBe(entry.declinesLoad === true);
      if (entry.declinesLoad) expect(entry.status).toEqual([503]);
    },
  );

  it('marks the 503 of a pool with no connection free, and not the rate limiter’s (it logs its outage)', () => {
    expect(Object.keys(DECLINED_LOAD)).toEqual(['database-unavailable']);
  });
});
