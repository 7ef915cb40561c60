import type { PropertyReport } from '../testing/kit.js';
import type { Reporter } from './check-args.js';

/** Properties that failed: a convention found broken (not a property the API's quota stopped). */
const failedOf = (reports: readonly PropertyReport[]) =>
  reports.filter((r) => !r.passed && r.refused === undefined).length;
const refusedOf = (reports: readonly PropertyReport[]) =>
  reports.filter((r) => r.refused !== undefined).length;

/** The last line of the text report: how many properties passed, failed, did not apply, were not checked. */
function summary(reports: readonly PropertyReport[]): string {
  const skipped = reports.filter((r) => r.skipped !== undefined).length;
  const failed = failedOf(reports);
  const refused = refusedOf(reports);
  return (
    `${reports.length - failed - skipped - refused} passed, ${failed} failed` +
    `${skipped > 0 ? `, ${skipped} skipped` : ''}` +
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

function json(reports: readonly PropertyReport[], seed: number): string {
  return JSON.stringify(
    { seed, passed: reports.every((r) => r.passed), notChecked: refusedOf(reports), properties: reports },
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

/** JUnit XML, as CI systems read it: one testcase per property, its failure or skip inside. */
function junit(reports: readonly PropertyReport[], seed: number): string {
  const failures = failedOf(reports);
  const errors = refusedOf(reports);
  const skipped = reports.filter((r) => r.skipped !== undefined).length;
  const cases = reports.map((r) => {
    const open = `    <testcase classname="rest-conventions.${r.id}" name="${escapeXml(r.name)}"`;
    if (r.skipped !== undefined)
      return `${open}>\n      <skipped message="${escapeXml(r.skipped)}"/>\n    </testcase>`;
    // JUnit's `error` is a test that could not run to its verdict, apart from a `failure`.
    if (r.refused !== undefined)
      return `${open}>\n      <error type="quota" message="${escapeXml(r.refused.split('\n')[0]!)}">${escapeXml(r.refused)}</error>\n    </testcase>`;
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
