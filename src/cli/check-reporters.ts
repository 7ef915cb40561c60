import type { PropertyReport } from '../testing/kit.js';
import type { Reporter } from './check-args.js';

/** What became of one property: it held, failed, did not apply, or the API refused the kit. */
type Outcome = 'passed' | 'failed' | 'skipped' | 'not-checked';

function outcomeOf(report: PropertyReport): Outcome {
  if (report.skipped !== undefined) return 'skipped';
  if (report.refused !== undefined) return 'not-checked';
  return report.passed ? 'passed' : 'failed';
}

/** How many properties came to each outcome: the four add up to the properties run. */
function countsOf(reports: readonly PropertyReport[]): Record<Outcome, number> & { properties: number } {
  const counts = { properties: reports.length, passed: 0, failed: 0, skipped: 0, 'not-checked': 0 };
  for (const report of reports) counts[outcomeOf(report)]++;
  return counts;
}

/** The last line of the text report: how many properties passed, failed, did not apply, were not checked. */
function summary(reports: readonly PropertyReport[]): string {
  const counts = countsOf(reports);
  const refused = counts['not-checked'];
  return (
    `${counts.passed} passed, ${counts.failed} failed` +
    `${counts.skipped > 0 ? `, ${counts.skipped} skipped` : ''}` +
    `${refused > 0 ? `, ${refused} not checked (the API refused the kit)` : ''}`
  );
}

/** A report's word in the text report: `env` for a property the API's quota stopped. */
const statusWord = (report: PropertyReport) =>
  report.skipped !== undefined
    ? 'skip'
    : report.refused !== undefined
      ? 'env '
      : report.passed
        ? 'pass'
        : 'FAIL';

function text(reports: readonly PropertyReport[], seed: number): string {
  const lines = [`seed ${seed}`];
  for (const report of reports) {
    lines.push(`${statusWord(report)}  ${report.id}: ${report.name}`);
    const detail = report.skipped ?? report.refused ?? report.message;
    if (detail !== undefined && (report.skipped !== undefined || !report.passed))
      lines.push(`      ${detail.replace(/\n/g, '\n      ')}`);
  }
  lines.push(summary(reports));
  return lines.join('\n');
}

/**
 * The JSON report: `passed` when every property held or did not apply, `counts` of each outcome
 * (they add up to `counts.properties`), and each property with its `outcome`.
 */
function json(reports: readonly PropertyReport[], seed: number): string {
  const properties = reports.map((report) => ({ ...report, outcome: outcomeOf(report) }));
  return JSON.stringify(
    { seed, passed: reports.every((r) => r.passed), counts: countsOf(reports), properties },
    null,
    2,
  );
}

/** Characters XML 1.0 can hold: tab, line feed, carriage return and from space up. */
const xmlChar = (c: string) => c >= ' ' || c === '\t' || c === '\n' || c === '\r';

const XML_ESCAPES: Record<string, string> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  "'": '&apos;',
  '"': '&quot;',
};

/** Text for an XML attribute or element: the characters XML cannot hold dropped, the five special escaped. */
const escapeXml = (value: string) =>
  [...value]
    .filter(xmlChar)
    .map((c) => XML_ESCAPES[c] ?? c)
    .join('');

/**
 * JUnit XML, as CI systems read it: one testcase per property, its failure, error or skip inside; a
 * property not checked is an `error` whose `type` says why (`quota`, `scope`).
 */
function junit(reports: readonly PropertyReport[], seed: number): string {
  const counts = countsOf(reports);
  const { failed: failures, skipped } = counts;
  const errors = counts['not-checked'];
  const cases = reports.map((r) => {
    const open = `    <testcase classname="rest-conventions.${r.id}" name="${escapeXml(r.name)}"`;
    if (r.skipped !== undefined)
      return `${open}>\n      <skipped message="${escapeXml(r.skipped)}"/>\n    </testcase>`;
    // JUnit's `error` is a test that could not run to its verdict, apart from a `failure`.
    if (r.refused !== undefined)
      return `${open}>\n      <error type="${r.refusedBy ?? 'not-checked'}" message="${escapeXml(r.refused.split('\n')[0]!)}">${escapeXml(r.refused)}</error>\n    </testcase>`;
    if (r.passed) return `${open}/>`;
    const message = r.message ?? '';
    return `${open}>\n      <failure message="${escapeXml(message.split('\n')[0]!)}">${escapeXml(message)}</failure>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="rest-conventions check" tests="${reports.length}" failures="${failures}" errors="${errors}">`,
    `  <testsuite name="conventions (seed ${seed})" tests="${reports.length}" failures="${failures}" errors="${errors}" skipped="${skipped}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
  ].join('\n');
}

export const REPORTERS: Record<Reporter, (reports: readonly PropertyReport[], seed: number) => string> = {
  text,
  json,
  junit,
};
