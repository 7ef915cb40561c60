import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { isRight } from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { STANDARD_STATUSES } from '../../examples/reference-app/standards/standard-store.js';
import { STANDARD_ATTRIBUTES } from '../../examples/reference-app/standards/standards-listing.js';
import { StandardCreate } from '../../examples/reference-app/standards/standards-routes.js';

const root = resolve(import.meta.dirname, '..', '..');

describe('the README', () => {
  it('shows exactly examples/readme/server.ts, which the typecheck compiles', () => {
    const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
    const block = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBe(readFileSync(resolve(root, 'examples/readme/server.ts'), 'utf8'));
    expect(block!.split('\n').filter((line) => line.trim() !== '').length).toBeLessThanOrEqual(30);
  });

  it('documents the scripts that package.json defines', () => {
    const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
    const scripts = Object.keys(JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')).scripts);
    for (const script of ['build', 'typecheck', 'lint', 'test', 'start', 'token', 'bench']) {
      expect(scripts).toContain(script);
      expect(readme).toMatch(new RegExp(`npm (run )?${script}`));
    }
  });
});

describe('the repository files a user looks for', () => {
  it('has the MIT LICENSE that package.json declares, and ignores packed tarballs', () => {
    expect(JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')).license).toBe('MIT');
    const license = readFileSync(resolve(root, 'LICENSE'), 'utf8');
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} rest-conventions contributors\n/);
    expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS"');
    expect(readFileSync(resolve(root, '.gitignore'), 'utf8').split('\n')).toContain('*.tgz');
  });

  it('has CONTRIBUTING.md and SECURITY.md, whose scripts exist and whose links resolve', () => {
    const scripts = Object.keys(JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')).scripts);
    for (const file of ['CONTRIBUTING.md', 'SECURITY.md']) {
      const text = readFileSync(resolve(root, file), 'utf8');
      for (const [, script] of text.matchAll(/npm run ([a-z:]+)/g)) expect(scripts, file).toContain(script);
      for (const [, target] of text.matchAll(/\]\(([^)#]+)\)/g)) {
        expect(existsSync(resolve(root, target!)), `${file} links ${target}`).toBe(true);
      }
    }
    const contributing = readFileSync(resolve(root, 'CONTRIBUTING.md'), 'utf8');
    expect(contributing).toMatch(/Rename freely before 1\.0/);
    expect(contributing).toMatch(/deprecated first, with a code[^.]*removed at the next major/);
  });

  it('says next to the own-server example that it reads PORT and throws without AUTH_SECRET', () => {
    const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## In your own server'), readme.indexOf('```ts'));
    expect(section).toMatch(/PORT/);
    expect(section).toMatch(/throws[^.]*AUTH_SECRET. is unset/);
    expect(readFileSync(resolve(root, 'examples/readme/server.ts'), 'utf8')).toContain('process.env.PORT');
  });
});

describe("the README's standards table", () => {
  const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
  const row = (field: string) => new RegExp(`^\\| \`${field}\` \\|.*$`, 'm').exec(readme)?.[0] ?? '';

  it('states the code format the codec enforces (independent check on random strings)', () => {
    const documented = /`(\^\[A-Z0-9\][^`]*\$)`/.exec(row('code'))?.[1];
    expect(documented).toBeDefined();
    const rule = new RegExp(documented!);
    const maxLength = Number(/1 to (\d+) characters/.exec(row('code'))?.[1]);
    const accepts = (code: string) => isRight(StandardCreate.decode({ code, name: 'A standard' }));
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'AZ09.-_az ÉĀ'.split('')), maxLength: 40 }),
        (code) => {
          expect(accepts(code)).toBe(rule.test(code) && code.length <= maxLength);
        },
      ),
    );
  });

  it('lists every status and every attribute of a standard', () => {
    expect(row('status')).not.toBe('');
    for (const status of STANDARD_STATUSES) expect(row('status')).toContain(`\`${status}\``);
    for (const field of STANDARD_ATTRIBUTES) expect(row(field), field).not.toBe('');
  });

  it('names the scope each standards route needs', () => {
    expect(readme).toMatch(/`standards:read` to `GET`/);
    expect(readme).toMatch(/`standards:write` to `POST`, `PATCH` or `DELETE`/);
  });
});
