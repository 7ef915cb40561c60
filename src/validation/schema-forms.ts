/**
 * What a JSON Schema 2020-12 (https://json-schema.org/draft/2020-12/json-schema-validation) says a
 * value must be, in the words the error details use for io-ts codecs ("an integer from 1 to 100"),
 * so a field refused by any validator reads the same; and the subschema at a member of an object or
 * an array (sections 10.3.1 and 10.3.2 of the core).
 */
import type { JsonSchema } from './describe.js';

const TYPE_FORMS: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  null: 'null',
  object: 'an object',
  array: 'an array',
};

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A bound worth naming: a number other than the safe-integer range most validators state for integers. */
function bound(value: unknown): number | undefined {
  return typeof value === 'number' && Math.abs(value) !== Number.MAX_SAFE_INTEGER ? value : undefined;
}

function rangeForm(noun: string, min: number | undefined, max: number | undefined, unit = ''): string {
  if (min !== undefined && max !== undefined) return `${noun} from ${min} to ${max}${unit}`;
  if (min !== undefined) return `${noun} of at least ${min}${unit}`;
  if (max !== undefined) return `${noun} of at most ${max}${unit}`;
  return noun;
}

/** The form a schema admits, as an error detail names it ("a string of 1 to 200 characters"). */
export function expectedForm(schema: JsonSchema): string {
  if ('const' in schema) return JSON.stringify(schema.const) ?? 'a valid value';
  if (Array.isArray(schema.enum))
    return `one of ${schema.enum.map((value) => JSON.stringify(value)).join(', ')}`;
  const members = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(members) && members.every(isSchema)) return members.map(expectedForm).join(' or ');
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length > 1) return types.map((type) => TYPE_FORMS[String(type)] ?? 'a valid value').join(' or ');
  switch (types[0]) {
    case 'integer':
      return rangeForm('an integer', bound(schema.minimum), bound(schema.maximum));
    case 'string': {
      const min = bound(schema.minLength);
      const max = bound(schema.maxLength);
      if (min !== undefined && max !== undefined) return `a string of ${min} to ${max} characters`;
      return rangeForm('a string', min, max, ' characters');
    }
    case 'number':
      return rangeForm('a number', bound(schema.minimum), bound(schema.maximum));
    default:
      return TYPE_FORMS[String(types[0])] ?? 'a valid value';
  }
}

/** The subschema a member of the value is checked against, if the schema says. */
export function schemaAt(schema: JsonSchema, key: string): JsonSchema | undefined {
  const { properties, items, prefixItems, additionalProperties } = schema;
  if (isSchema(properties) && Object.hasOwn(properties, key) && isSchema(properties[key]))
    return properties[key];
  if (/^(0|[1-9]\d*)$/.test(key)) {
    if (Array.isArray(prefixItems) && isSchema(prefixItems[Number(key)])) return prefixItems[Number(key)];
    if (isSchema(items)) return items;
  }
  if (isSchema(additionalProperties)) return additionalProperties;
  const members = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (Array.isArray(members))
    for (const member of members) {
      const found = isSchema(member) ? schemaAt(member, key) : undefined;
      if (found !== undefined) return found;
    }
  return undefined;
}

/** Whether an object schema refuses a member by that name (`additionalProperties: false`). */
export function unknownMember(schema: JsonSchema, key: string): boolean {
  const refusesOthers = schema.additionalProperties === false || schema.unevaluatedProperties === false;
  const { properties } = schema;
  return refusesOthers && !(isSchema(properties) && Object.hasOwn(properties, key));
}
