import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';

/**
 * Validators for what the project emits, from the official schemas copied into
 * `test/fixtures/schemas/` (their sources are in its README): JSON:API 1.0 for documents, RFC 9457
 * for problem details. Formats are left unchecked (links are relative references, fine in JSON:API 1.1).
 */
const schemaDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'schemas');

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });

/**
 * The JSON:API 1.0 schema with the one 1.1 member the library sends that 1.0 lacks: an error
 * object's `links.type`, the problem type it is an instance of (JSON:API 1.1 "Error Objects"); and
 * a route's declared links beside the top-level `self` (docs/envelope.md, "Declared links"), each a
 * link, which JSON:API clients ignore as members they do not recognize.
 */
function jsonApi11Schema(): object {
  const schema = JSON.parse(readFileSync(join(schemaDir, 'jsonapi-1.0.schema.json'), 'utf8'));
  schema.definitions.errorLinks.properties.type = { $ref: '#/definitions/link' };
  schema.definitions.topLevelLinks.additionalProperties = { $ref: '#/definitions/link' };
  return schema;
}

const jsonApi = ajv.compile(jsonApi11Schema());
const problem = ajv.compile(JSON.parse(readFileSync(join(schemaDir, 'problem-details.schema.json'), 'utf8')));

/** Throws with ajv's explanation unless `body` is a valid JSON:API document (1.0, and 1.1's error `links.type`). */
export function assertJsonApi(body: unknown): void {
  if (!jsonApi(body))
    throw new Error(`not a JSON:API document: ${ajv.errorsText(jsonApi.errors)}\n${JSON.stringify(body)}`);
}

/** Throws unless `body` is a valid RFC 9457 problem document. */
export function assertProblem(body: unknown): void {
  if (!problem(body))
    throw new Error(`not a problem document: ${ajv.errorsText(problem.errors)}\n${JSON.stringify(body)}`);
}
