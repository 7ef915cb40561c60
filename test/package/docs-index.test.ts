import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/README.md is the door to the docs: every page linked from it exactly once; the README's
// table of primitives points at it and names no page twice.

const root = join(import.meta.dirname, '../..');
const pages = readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md') && name !== 'README.md')
  .sort();
const links = (text: string, prefix: string) =>
  [...text.matchAll(new RegExp(`\\]\\(${prefix}([a-z-]+\\.md)(?:#[a-z0-9-]+)?\\)`, 'g'))].map((m) => m[1]!);

describe('docs/README.md', () => {
  const index = readFileSync(join(root, 'docs/README.md'), 'utf8');

  it('links every page of docs/ exactly once', () => {
    expect(links(index, '').sort()).toEqual(pages);
  });

  it('is where the README sends a reader, and the README table names each page once', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toContain('[docs/README.md](docs/README.md)');
    const table = readme.slice(readme.indexOf('## The primitives'), readme.indexOf('## The reference app'));
    const listed = links(table, 'docs/').filter((page) => page !== 'api.md');
    expect(listed.length).toBeGreaterThan(10);
    expect(new Set(listed).size).toBe(listed.length);
  });
});

describe('docs/benchmarks.md', () => {
  it('is the current results and method in under 155 lines, without lab notes', () => {
    const page = readFileSync(join(root, 'docs/benchmarks.md'), 'utf8');
    // 150 until the OpenTelemetry cost figures (docs/observability.md, "Cost") took three lines.
    expect(page.trimEnd().split('\n').length).toBeLessThan(155);
    for (const note of ['This round', 'Next candidates', 'Done so far', 'The previous round'])
      expect(page).not.toContain(note);
  });
});

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

describe('links to a section of a page', () => {
  it('name a heading that page has', () => {
    const sources = ['README.md', ...pages.map((page) => `docs/${page}`)];
    const broken: string[] = [];
    for (const source of sources) {
      const text = readFileSync(join(root, source), 'utf8');
      for (const [, page, anchor] of text.matchAll(/\]\((?:docs\/)?([a-z-]+\.md)#([^)\s]+)\)/g)) {
        const target = readFileSync(join(root, 'docs', page!), 'utf8');
        const anchors = [...target.matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1]!));
        if (!anchors.includes(anchor!)) broken.push(`${source}: ${page}#${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
