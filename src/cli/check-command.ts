import type { OpenApiDocument } from '../openapi/types.js';
import { checkConventions } from '../testing/kit.js';
import { urlTarget } from '../testing/target.js';
import { checkSettings, UsageError } from './check-args.js';
import { REPORTERS } from './check-reporters.js';
import { readJsonDocument } from './read-document.js';

export const CHECK_USAGE = `Usage: rest-conventions check --base <URL> --token-a <T> --token-b <T> [options]

Runs the convention properties (docs/testing.md) against a running API; what to create, the
versions, deprecated operations and moved URLs come from its OpenAPI document.
  --openapi <URL-or-file>   its OpenAPI document (default <base>/openapi.json)
  --only <ids>, --skip <ids>  properties by id, comma-separated (documents, bad-input, ...)
  --profile development     plain HTTP: Strict-Transport-Security not required
  --relax <headers>         response headers not required (cache-control, ...)
  --create <path>=<json>    a resource to create instead of the document's; --update <json> a PATCH body
  --runs <n>                runs per property (default 30)     --seed <n>   replay a run
  --seconds <n>             time per property (default 30)
  --reporter text|json|junit   the report's form (default text)
  --config <file>           a JSON object of these flags ("token-a": "..."); flags given win
Exit status: 0 every property held, 1 one failed, 2 wrong arguments or no document, 3 none
failed but the API refused the kit (429, or 401/403: a token lacks a scope) so that some could not
be checked.`;

/** `rest-conventions check`: the convention properties against a base URL. */
export async function checkCommand(args: readonly string[], out: (line: string) => void): Promise<number> {
  let document: OpenApiDocument;
  let settings: Awaited<ReturnType<typeof checkSettings>>;
  try {
    settings = await checkSettings(args);
    document = (await readJsonDocument(
      settings.openapi ?? `${settings.base.replace(/\/$/, '')}/openapi.json`,
    )) as OpenApiDocument;
  } catch (error) {
    if (error instanceof UsageError) out(`rest-conventions check: ${error.message}\n\n${CHECK_USAGE}`);
    else out(`rest-conventions check: ${(error as Error).message}`);
    return 2;
  }
  let reports: Awaited<ReturnType<typeof checkConventions>>;
  try {
    reports = await checkConventions({
      target: urlTarget(settings.base),
      document,
      principals: { a: settings.tokenA, b: settings.tokenB },
      ...(settings.creates === undefined ? {} : { creates: settings.creates }),
      ...(settings.only === undefined ? {} : { only: settings.only }),
      ...(settings.skip === undefined ? {} : { skip: settings.skip }),
      ...(settings.profile === undefined ? {} : { profile: settings.profile }),
      ...(settings.relax === undefined ? {} : { relax: settings.relax }),
      ...(settings.seed === undefined ? {} : { seed: settings.seed }),
      ...(settings.runs === undefined ? {} : { numRuns: settings.runs }),
      ...(settings.seconds === undefined ? {} : { timeLimitMs: settings.seconds * 1000 }),
    });
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    out(`rest-conventions check: ${error.message.replace(/^conventionProperties: /, '')}`);
    return 2;
  }
  out(REPORTERS[settings.reporter](reports, reports[0]?.seed ?? settings.seed ?? 0));
  if (reports.some((r) => !r.passed && r.refused === undefined)) return 1;
  return reports.some((r) => r.refused !== undefined) ? 3 : 0;
}
