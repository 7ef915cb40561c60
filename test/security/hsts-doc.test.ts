/** docs/security.md's advice on HSTS agrees with the conventions test kit, which requires the header. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentProblems } from '../../src/testing/index.js';
import { root } from '../support/built-package.js';

describe('HSTS in docs/security.md and the kit', () => {
  it('the kit fails a response without Strict-Transport-Security, and the page says so', () => {
    const headers = {
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'x-xss-protection': '0',
    };
    expect(documentProblems({ status: 204, headers, text: '' })).toEqual([
      'security header strict-transport-security is missing',
    ]);
    const page = readFileSync(join(root, 'docs', 'security.md'), 'utf8');
    const advice = page.slice(
      page.indexOf('HSTS is sent on every response'),
      page.indexOf('No error statuses'),
    );
    // The page may only advise turning it off together with what the kit then does.
    expect(advice).toContain("'strict-transport-security': false");
    expect(advice).toContain('fails every response without `Strict-Transport-Security`');
  });
});
