import Ajv2020 from 'ajv/dist/2020.js';
import { DOCUMENT_SCHEMAS } from '../openapi/schemas.js';
import type { TargetResponse } from './target.js';

/** The security headers every response carries (see `docs/security.md`). */
export const REQUIRED_SECURITY_HEADERS: readonly string[] = [
  'strict-transport-security',
  'x-content-type-options',
  'x-frame-options',
  'x-xss-protection',
];

/** Member names that never belong in a response: they reveal the server's internals or secrets. */
export const INTERNAL_FIELDS: ReadonlySet<string> = new Set([
  'stack',
  'stacktrace',
  'trace',
  'sql',
  'exception',
  'password',
  'passwordhash',
  'secret',
]);

const STACK_TRACE =
  /\n\s*at\s+\S.*[:(]\d+:\d+\)?|node:internal|\/node_modules\/|\bat (?:async )?[\w$.<>]+ \((?:file:|\/)/;

/** Where the document schemas are registered (a name only: nothing is fetched). */
const KIT_ID = 'https://rest-conventions.invalid/kit';
const ajv = new Ajv2020({ strict: false, validateFormats: false });
ajv.addSchema({ $id: KIT_ID, components: { schemas: DOCUMENT_SCHEMAS } } as never);
const ref = (name: string) => ajv.compile({ $ref: `${KIT_ID}#/components/schemas/${name}` });
const isErrorDocument = ref('ErrorDocument');
const isProblem = ref('Problem');
const isResourceDocument = ref('ResourceDocument');
const isCollectionDocument = ref('CollectionDocument');
const isMetaDocument = ref('MetaDocument');

/**
 * What is wrong with a response as a convention document: not JSON:API (errors for 4xx/5xx) or
 * RFC 9457 problem details, a security header or an explicit caching statement (`Cache-Control`)
 * missing (unless `relaxed` names it: `strict-transport-security` on plain HTTP), a stack trace or an
 * internal member in the body. Empty when it is right.
 */
export function documentProblems(
  response: TargetResponse,
  method = 'GET',
  relaxed: ReadonlySet<string> = new Set(),
): string[] {
  const problems: string[] = [];
  for (const name of REQUIRED_SECURITY_HEADERS) {
    if (response.headers[name] === undefined && !relaxed.has(name))
      problems.push(`security header ${name} is missing`);
  }
  if (response.headers['cache-control'] === undefined && !relaxed.has('cache-control'))
    problems.push('no Cache-Control: the response does not say whether it may be cached');
  // In JSON a trace's line breaks are escaped (`\n`): look at the text with them unescaped too.
  if (STACK_TRACE.test(response.text) || STACK_TRACE.test(response.text.replace(/\\n/g, '\n')))
    problems.push('the body contains a stack trace');
  if (response.text === '' || method === 'HEAD') return problems;
  const type = (response.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  // The convention documents: JSON:API, plain JSON and problem details (not, say, an OpenAPI document).
  if (
    type !== 'application/vnd.api+json' &&
    type !== 'application/json' &&
    type !== 'application/problem+json'
  ) {
    return problems;
  }
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    problems.push(`the ${type} body is not JSON`);
    return problems;
  }
  const leaked = internalMember(body, 0);
  if (leaked !== undefined) problems.push(`the body has an internal member "${leaked}"`);
  if (type === 'application/problem+json') {
    if (!isProblem(body)) problems.push('not an RFC 9457 problem document');
  } else if (response.status >= 400) {
    if (!isErrorDocument(body)) problems.push('an error response that is not a JSON:API error document');
  } else if (!(isResourceDocument(body) || isCollectionDocument(body) || isMetaDocument(body))) {
    problems.push('a success response that is not a JSON:API document (data or meta)');
  }
  return problems;
}

function internalMember(value: unknown, depth: number): string | undefined {
  if (depth > 20 || typeof value !== 'object' || value === null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    if (INTERNAL_FIELDS.has(key.toLowerCase())) return key;
    const found = internalMember(child, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A response as a failure report shows it: status, the headers that matter, the start of the body. */
export function describeResponse(response: TargetResponse): string {
  const shown = Object.entries(response.headers)
    .filter(([name]) => name !== 'date' && name !== 'x-request-id')
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n  ');
  const body = response.text.length > 600 ? `${response.text.slice(0, 600)}…` : response.text;
  return `${response.status}\n  ${shown}\n  ${body}`;
}
