import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILT_HOOK_TIMEOUT_MS, ensureBuilt, root } from '../support/built-package.js';
import { WORKER_BUILD_OPTIONS } from '../support/runtimes.js';

/**
 * What a small app costs its users: security headers, bearer authentication, conditional requests
 * and one route on the fetch adapter (`fixtures/small-app.ts`), bundled and minified as a Worker is
 * bundled (docs/runtimes.md). Code only a dynamic `import()` reaches (jose, for asymmetric JWTs) is
 * a chunk of its own, loaded on first use, and not counted.
 */
const BUDGET_BYTES = 73 * 1024;

/**
 * The last measured size of each part of the bundle, in bytes: a failure names the parts that
 * grew past these. Update them when the bundle changes on purpose.
 */
const MEASURED: Readonly<Record<string, number>> = {
  'rest-conventions': 69_940,
  'jose/errors': 2_424,
};

/** `node_modules/<package>/...` → the package (jose's errors apart); the library's own files → `rest-conventions`. */
function partOf(input: string): string {
  // jose's error classes, which the HMAC fast path throws, are not jose's verifier.
  if (input.includes('node_modules/jose/dist/webapi/util/errors.')) return 'jose/errors';
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  return match ? match[1]! : input.startsWith('dist/') ? 'rest-conventions' : input;
}

interface Measured {
  readonly bytes: number;
  readonly parts: Map<string, number>;
  readonly external: Set<string>;
}

/** The entry chunk and every chunk it imports statically: what loads when the app starts. */
function initialLoad(metafile: Metafile): Measured {
  const outputs = metafile.outputs;
  const entry = Object.keys(outputs).find((name) => outputs[name]!.entryPoint !== undefined)!;
  const seen = new Set<string>();
  const parts = new Map<string, number>();
  const external = new Set<string>();
  let bytes = 0;
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const output = outputs[name]!;
    bytes += output.bytes;
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs))
      parts.set(partOf(input), (parts.get(partOf(input)) ?? 0) + bytesInOutput);
    for (const imported of output.imports) {
      if (imported.external) external.add(imported.path);
      else if (imported.kind === 'import-statement') visit(imported.path);
    }
  };
  visit(entry);
  return { bytes, parts, external };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

let measured: Measured;

beforeAll(async () => {
  ensureBuilt();
  const result = await build({
    ...WORKER_BUILD_OPTIONS,
    entryPoints: [join(root, 'test', 'package', 'fixtures', 'small-app.ts')],
    minify: true,
    splitting: true,
    outdir: join(root, 'node_modules', '.cache', 'size-budget'),
    write: false,
    metafile: true,
  });
  measured = initialLoad(result.metafile);
}, BUILT_HOOK_TIMEOUT_MS);

describe('the size budget', () => {
  it(`bundles a small app to at most ${kb(BUDGET_BYTES)} minified, naming what grew`, () => {
    const grew = [...measured.parts]
      .filter(([part, bytes]) => bytes > (MEASURED[part] ?? 0) + 512)
      .sort((a, b) => b[1] - a[1])
      .map(([part, bytes]) => `${part} ${kb(bytes)} (was ${kb(MEASURED[part] ?? 0)})`);
    expect(
      measured.bytes,
      `${kb(measured.bytes)}; grew: ${grew.join(', ') || 'nothing measured'}`,
    ).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it('loads no codec library and no jose at start, and of Node only node:crypto', () => {
    for (const part of ['io-ts', 'fp-ts', 'jose']) expect(measured.parts.has(part), part).toBe(false);
    expect([...measured.external]).toEqual(['node:crypto']);
  });
});
