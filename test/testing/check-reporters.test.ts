/**
 * The check CLI's reporters over one report of each outcome: the counts add up to the properties
 * run in every format, and a property not checked says why (the API's quota, or the tokens' scope).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPORTERS } from '../../src/cli/check-reporters.js';
import type { PropertyReport } from '../../src/testing/index.js';

const SEED = 42;
const REPORTS: PropertyReport[] = [
  { id: 'documents', name: 'documents', passed: true, seed: SEED },
  { id: 'bad-input', name: 'bad input', passed: false, message: 'a 500 for GET /x\n  curl ...', seed: SEED },
  { id: 'versions', name: 'versions', passed: true, skipped: 'the API lists no versions', seed: SEED },
  {
    id: 'rate-limits',
    name: 'rate limits',
    passed: false,
    refused: 'not checked: a 429 with Retry-After: 3600',
    refusedBy: 'quota',
    seed: SEED,
  },
  {
    id: 'query',
    name: 'QUERY /standards',
    passed: false,
    refused: "not checked: the API refused the kit's token a QUERY (403)",
    refusedBy: 'scope',
    seed: SEED,
  },
  { id: 'jsonapi-parameters', name: 'ext & profile <JSON:API>', passed: true, seed: SEED },
];

describe('the check reporters', () => {
  it('text: the summary counts each outcome once', () => {
    const lines = REPORTERS.text(REPORTS, SEED).split('\n');
    expect(lines.at(-1)).toBe('2 passed, 1 failed, 1 skipped, 2 not checked (the API refused the kit)');
  });

  it('json: counts that add up to the properties run, and each property its outcome', () => {
    const report = JSON.parse(REPORTERS.json(REPORTS, SEED));
    expect(report.passed).toBe(false);
    expect(report.counts).toEqual({ properties: 6, passed: 2, failed: 1, skipped: 1, 'not-checked': 2 });
    const { properties, ...outcomes } = report.counts;
    expect(Object.values(outcomes).reduce((a: number, b) => a + (b as number), 0)).toBe(properties);
    expect(report.properties.map((p: { outcome: string }) => p.outcome)).toEqual([
      'passed',
      'failed',
      'skipped',
      'not-checked',
      'not-checked',
      'passed',
    ]);
    expect(report.properties[3].refusedBy).toBe('quota');
  });

  it('junit: a JUnit reader counts the same, and each skip and error carries its own reason', () => {
    // Python's XML parser reads what a CI server would.
    const read = spawnSync(
      'python3',
      [
        '-c',
        [
          'import sys, json, xml.etree.ElementTree as E',
          'r = E.fromstring(sys.stdin.read()); s = r.find("testsuite")',
          'print(json.dumps({"suite": dict(s.attrib), "cases": [[c.get("classname"), [[k.tag, k.get("type"), k.get("message")] for k in c]] for c in s.iter("testcase")]}))',
        ].join('\n'),
      ],
      { input: REPORTERS.junit(REPORTS, SEED), encoding: 'utf8' },
    );
    expect(read.stderr).toBe('');
    const { suite, cases } = JSON.parse(read.stdout);
    expect(suite).toMatchObject({ tests: '6', failures: '1', errors: '2', skipped: '1' });
    expect(cases).toEqual([
      ['rest-conventions.documents', []],
      ['rest-conventions.bad-input', [['failure', null, 'a 500 for GET /x']]],
      ['rest-conventions.versions', [['skipped', null, 'the API lists no versions']]],
      ['rest-conventions.rate-limits', [['error', 'quota', 'not checked: a 429 with Retry-After: 3600']]],
      [
        'rest-conventions.query',
        [['error', 'scope', "not checked: the API refused the kit's token a QUERY (403)"]],
      ],
      ['rest-conventions.jsonapi-parameters', []],
    ]);
    const passed =
      Number(suite.tests) - Number(suite.failures) - Number(suite.errors) - Number(suite.skipped);
    expect(passed).toBe(2);
  });
});
