import type { PropertyReport } from '../testing/kit.js';
import type { Reporter } from './check-args.js';

/** The last line of the text report: how many properties passed, failed and did not apply. */
function summary(reports: readonly PropertyReport[]): string {
  const skipped = reports.filter((r) => r.skipped !== undefined).length;
  const failed = reports.filter((r) => !r.passed).length;
  return `${reports.length - failed - skipped} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`;
}

function text(reports: readonly PropertyReport[], seed: number): string {
  const lines = [`seed ${seed}`];
  for (const report of reports) {
    const status = report.skipped !== undefined ? 'skip' : report.passed ? 'pass' : 'FAIL';
    lines.push(`${status}  ${report.id}: ${report.name}`);
    const detail = report.skipped ?? report.message;
    if (detail !== undefined && (report.skipped !== undefined || !report.passed))
      lines.push(`      ${detail.replace(/\n/g, '\n      ')}`);
  }
  lines.push(summary(reports));
  return lines.join('\n');
}

function json(reports: readonly PropertyReport[], seed: number): string {
  const failed = reports.filter((r) => !r.passed).length;
  return JSON.stringify({ seed, passed: failed === 0, properties: reports }, null, 2);
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
  const failures = reports.filter((r) => !r.passed).length;
  const skipped = reports.filter((r) => r.skipped !== undefined).length;
  const cases = reports.map((r) => {
    const open = `    <testcase classname="rest-conventions.${r.id}" name="${escapeXml(r.name)}"`;
    if (r.skipped !== undefined)
      return `${open}>\n      <skipped message="${escapeXml(r.skipped)}"/>\n    </testcase>`;
    if (r.passed) return `${open}/>`;
    const message = r.message ?? '';
    return `${open}>\n      <failure message="${escapeXml(message.split('\n')[0]!)}">${escapeXml(message)}</failure>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="rest-conventions check" tests="${reports.length}" failures="${failures}">`,
    `  <testsuite name="conventions (seed ${seed})" tests="${reports.length}" failures="${failures}" skipped="${skipped}">`,
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
