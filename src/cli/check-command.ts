import type { OpenApiDocument } from '../openapi/types.js';
import { checkConventions } from '../testing/kit.js';
import { urlTarget } from '../testing/target.js';
import { readJsonDocument } from './read-document.js';

export const CHECK_USAGE = `Usage: rest-conventions check --base <URL> --token-a <T> --token-b <T> [options]

Runs the convention properties (docs/testing.md) against a running API.
  --openapi <URL-or-file>   its OpenAPI document (default <base>/openapi.json)
  --create <path>=<json>    a resource the kit may create, e.g. '/orders={"bookId":1,"quantity":1}'
  --update <json>           a PATCH body for the created resource
  --runs <n>                runs per property (default 30)     --seed <n>   replay a run
  --seconds <n>             time per property (default 30)
Prints one line per property and, last, "N passed, N failed"; exit status 1 on any failure.`;

/** `rest-conventions check`: the convention properties against a base URL. */
export async function checkCommand(args: readonly string[], out: (line: string) => void): Promise<number> {
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i += 2) {
    const name = args[i]!;
    const value = args[i + 1];
    if (!name.startsWith('--') || value === undefined) {
      out(CHECK_USAGE);
      return 2;
    }
    flags.set(name.slice(2), value);
  }
  const base = flags.get('base');
  const a = flags.get('token-a');
  const b = flags.get('token-b');
  if (base === undefined || a === undefined || b === undefined) {
    out(CHECK_USAGE);
    return 2;
  }
  const numeric = (name: string) => (flags.has(name) ? Number(flags.get(name)) : undefined);
  let document: OpenApiDocument;
  try {
    document = (await readJsonDocument(
      flags.get('openapi') ?? `${base.replace(/\/$/, '')}/openapi.json`,
    )) as OpenApiDocument;
  } catch (error) {
    out(`rest-conventions check: ${(error as Error).message}`);
    return 2;
  }
  const creates = [];
  const create = flags.get('create');
  if (create !== undefined) {
    const at = create.indexOf('=');
    try {
      creates.push({
        path: create.slice(0, at),
        body: JSON.parse(create.slice(at + 1)),
        ...(flags.has('update') ? { update: JSON.parse(flags.get('update')!) } : {}),
      });
    } catch {
      out('rest-conventions check: --create and --update take <path>=<json> and <json>');
      return 2;
    }
  }
  const seed = numeric('seed');
  const runs = numeric('runs');
  const seconds = numeric('seconds');
  const reports = await checkConventions({
    target: urlTarget(base),
    document,
    principals: { a, b },
    creates,
    ...(seed === undefined ? {} : { seed }),
    ...(runs === undefined ? {} : { numRuns: runs }),
    ...(seconds === undefined ? {} : { timeLimitMs: seconds * 1000 }),
  });
  out(`seed ${reports[0]?.seed ?? seed ?? 'n/a'}`);
  for (const report of reports) {
    out(`${report.passed ? 'pass' : 'FAIL'}  ${report.name}`);
    if (!report.passed) out(`      ${report.message?.replace(/\n/g, '\n      ')}`);
  }
  const failed = reports.filter((r) => !r.passed).length;
  out(`${reports.length - failed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}
