/**
 * The environment tables (README.md, docs/deployment.md) against what the reference app reads:
 * the variables are those `configFromEnv` asks for, and a default the README states is the one an
 * empty environment gives.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../examples/reference-app/config.js';
import { root } from '../support/built-package.js';

/** The variables `configFromEnv` reads, asked of an empty environment that notes each name. */
function readByConfig(): Set<string> {
  const asked = new Set<string>();
  const env = new Proxy({} as NodeJS.ProcessEnv, {
    get: (_target, name) => {
      if (typeof name === 'string') asked.add(name);
      return undefined;
    },
  });
  configFromEnv(env);
  return asked;
}

/** `NAME` of every `env.NAME` (and `process.env.NAME`) in the reference app's sources, by file. */
function readInSources(): Map<string, Set<string>> {
  const dir = join(root, 'examples/reference-app');
  const found = new Map<string, Set<string>>();
  for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts')) continue;
    const source = readFileSync(join(dir, file), 'utf8');
    const names = [...source.matchAll(/\benv\s*(?:\.\s*|\[\s*['"`])([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!);
    if (names.length > 0) found.set(file, new Set(names));
  }
  return found;
}

interface Row {
  readonly names: string[];
  readonly cells: string[];
}

/** The rows of the table whose header starts with `header` in `file`: its variables and its cells. */
function tableRows(file: string, header: string): Row[] {
  const text = readFileSync(join(root, file), 'utf8');
  const start = text.indexOf(header);
  expect(start, `${file} has a table headed ${header}`).toBeGreaterThanOrEqual(0);
  const table = text.slice(start, text.indexOf('\n\n', start));
  return table
    .split('\n')
    .slice(2)
    .map((line) => {
      const cells = line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      return { names: codeSpans(cells[0]!).filter(isVariable), cells };
    });
}

const codeSpans = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
const isVariable = (text: string) => /^[A-Z][A-Z0-9_]*$/.test(text);

/** A value for a variable a default depends on (`... with REDIS_CLUSTER_NODES`). */
const CONDITION_VALUES: Record<string, string> = { REDIS_CLUSTER_NODES: '127.0.0.1:7000' };

const config = readByConfig();
const readme = tableRows('README.md', '| Environment | Default | Meaning |');

describe('the README environment table', () => {
  it('lists every variable the reference app reads, and no other', () => {
    const listed = readme.flatMap((row) => row.names);
    expect(listed.length).toBeGreaterThan(15);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual([...config].sort());
  });

  it('is complete because config.ts is where the app reads its environment', () => {
    // Anything read elsewhere (the cluster launcher reads PORT too) is read by config.ts as well.
    for (const [file, names] of readInSources()) {
      for (const name of names) expect(config.has(name), `${name}, read in ${file}`).toBe(true);
    }
  });

  it('states the default an empty environment gives', () => {
    const empty = configFromEnv({});
    let checked = 0;
    for (const { names, cells } of readme) {
      // `value`, `value` for the row's variables in turn; then `; `value` with `OTHER`` when
      // another variable changes a default. A cell without a code span ("unset", prose) states none.
      const [plain, ...conditional] = cells[1]!.split(';');
      const values = codeSpans(plain!);
      if (values.length > 0) expect(values, `${names} defaults`).toHaveLength(names.length);
      values.forEach((value, i) => {
        expect(configFromEnv({ [names[i]!]: value }), `${names[i]}=${value}`).toEqual(empty);
        checked++;
      });
      for (const clause of conditional) {
        const [, value, other] = /^\s*`([^`]+)` with `([A-Z0-9_]+)`\s*$/.exec(clause) ?? [];
        expect(value, `${names}: "${clause}" reads as \`value\` with \`VARIABLE\``).toBeDefined();
        expect(names, `${names}: a default with ${other}`).toHaveLength(1);
        const base = { [other!]: CONDITION_VALUES[other!] };
        expect(configFromEnv({ ...base, [names[0]!]: value }), `${names[0]}=${value} with ${other}`).toEqual(
          configFromEnv(base),
        );
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(15);
  });
});

describe('the environment table of docs/deployment.md', () => {
  it('names only variables the reference app reads', () => {
    const listed = tableRows('docs/deployment.md', '| Variable | Value |').flatMap((row) => row.names);
    expect(listed).toContain('REDIS_CLUSTER_NODES');
    for (const name of listed) expect(config.has(name), name).toBe(true);
  });
});
