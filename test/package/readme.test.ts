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
