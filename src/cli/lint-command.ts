import { LINT_RULE_IDS, type LintOptions, type LintRuleId, lintOpenApi } from '../lint/index.js';
import type { OpenApiDocument } from '../openapi/types.js';
import { readJsonDocument } from './read-document.js';

export const LINT_USAGE = `Usage: rest-conventions lint <file-or-URL> [--off rule,rule] [--json]

Checks an OpenAPI 3.x document (JSON) against the conventions in docs/lint.md.
Exit status: 0 no finding, 1 findings, 2 the document could not be read.
Rules: ${LINT_RULE_IDS.join(', ')}`;

/** `rest-conventions lint`: prints one line per finding (or JSON) and returns the exit status. */
export async function lintCommand(args: readonly string[], out: (line: string) => void): Promise<number> {
  let source: string | undefined;
  let json = false;
  const off: LintRuleId[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--json') json = true;
    else if (arg === '--off') {
      for (const id of (args[++i] ?? '').split(',').filter(Boolean)) {
        if (!LINT_RULE_IDS.includes(id as LintRuleId)) {
          out(`Unknown rule "${id}".\n\n${LINT_USAGE}`);
          return 2;
        }
        off.push(id as LintRuleId);
      }
    } else if (source === undefined && !arg.startsWith('-')) source = arg;
    else {
      out(LINT_USAGE);
      return 2;
    }
  }
  if (source === undefined) {
    out(LINT_USAGE);
    return 2;
  }
  let document: OpenApiDocument;
  try {
    document = (await readJsonDocument(source)) as OpenApiDocument;
    if (typeof document !== 'object' || document === null || typeof document.openapi !== 'string') {
      throw new Error(`${source} is not an OpenAPI document (no "openapi" version)`);
    }
  } catch (error) {
    out(`rest-conventions lint: ${(error as Error).message}`);
    return 2;
  }
  const options: LintOptions = { rules: Object.fromEntries(off.map((id) => [id, 'off'])) };
  const findings = lintOpenApi(document, options);
  if (json) out(JSON.stringify(findings, null, 2));
  else {
    for (const f of findings) out(`${f.method ?? '*'} ${f.path}  ${f.rule}: ${f.message} (${f.docs})`);
    out(
      findings.length === 0
        ? 'No findings.'
        : `${findings.length} finding${findings.length === 1 ? '' : 's'}.`,
    );
  }
  return findings.length === 0 ? 0 : 1;
}
