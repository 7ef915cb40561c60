import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

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

  it('says next to the own-server example that it reads PORT and throws without AUTH_SECRET', () => {
    const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## In your own server'), readme.indexOf('```ts'));
    expect(section).toMatch(/PORT/);
    expect(section).toMatch(/throws[^.]*AUTH_SECRET. is unset/);
    expect(readFileSync(resolve(root, 'examples/readme/server.ts'), 'utf8')).toContain('process.env.PORT');
  });
});
