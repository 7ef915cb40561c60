import type * as t from 'io-ts';
import { afterPending, isPromise, type Pending, settleOrCollect } from '../core/maybe-promise.js';
import { parseQuery } from '../core/query-string.js';
import type { CodedErrorDetail } from '../errors/coded-error.js';
import { echo } from '../errors/echo.js';
import type { Context } from '../http/types.js';
import { checkMaxErrors, ErrorList } from './error-cap.js';
import { isListValued, LIST_SEPARATOR } from './query-lists.js';
import { decoderOf, type StandardSchemaV1, validateSchema } from './standard-schema.js';

/** The codecs `decodeQuery` takes: one io-ts codec or Standard Schema per query parameter name. */
export type QueryDecoders = Readonly<Record<string, t.Decoder<unknown, unknown> | StandardSchemaV1>>;
/** What `decodeQuery` returns: each listed parameter's decoded value, absent when it was not sent. */
export type DecodedQueryValues<Q extends QueryDecoders> = {
  readonly [K in keyof Q]?: Q[K] extends StandardSchemaV1
    ? StandardSchemaV1.InferOutput<Q[K]>
    : Q[K] extends t.Decoder<unknown, infer A>
      ? A
      : never;
};

/**
 * Decode query parameters by name (`author`, `page[size]`, `filter[status]`, ...). A parameter that is
 * not listed, given twice, or invalid is a 400 whose error names it in `source.parameter`
 * (JSON:API 1.0 "Query Parameters"), at most `maxErrors` of them (default `MAX_ERRORS`, 20; the rest are
 * counted in `meta.omittedErrors`). Absent parameters are absent in the result.
 *
 * A list-valued parameter (its codec's schema is an array: `queryList`, `querySort`) is read in every
 * form clients send: repeated (`?sort=-code&sort=name`, OpenAPI's default `style: form, explode: true`),
 * comma-joined (`?sort=-code,name`, `explode: false`, JSON:API's spelling), with empty brackets
 * (`?sort[]=-code&sort[]=name`, axios' and qs' default, a JSON:API 1.1 family member) or any mix: the
 * list is every value's members in order. Only a scalar parameter given twice is refused.
 *
 * It reads the request's own query string (`ctx.request.search`), never `ctx.query`, which holds what a
 * declared route already decoded: the same request decodes to the same answer wherever it is called.
 *
 * A parameter's codec may be any Standard Schema validator instead (`z.coerce.number().int()`); one
 * that validates asynchronously is awaited in a declared route's `query`, and a `TypeError` here.
 *
 * @example const { author } = decodeQuery(ctx, { author: text({ maxLength: 200 }) });
 */
export function decodeQuery<Q extends QueryDecoders>(
  ctx: Context,
  codecs: Q,
  options?: { readonly maxErrors?: number },
): DecodedQueryValues<Q> {
  const decoded = decodeQueryInput(ctx, codecs, options);
  if (isPromise(decoded)) {
    decoded.catch(() => undefined);
    throw new TypeError('decodeQuery: a validator answers asynchronously; declare it as a route query');
  }
  return decoded;
}

/** {@link decodeQuery}, awaiting validators that answer asynchronously (a declared route's query). */
export function decodeQueryInput<Q extends QueryDecoders>(
  ctx: Context,
  codecs: Q,
  options?: { readonly maxErrors?: number },
): DecodedQueryValues<Q> | Promise<DecodedQueryValues<Q>> {
  if (ctx.request.search === '') return {};
  const max = checkMaxErrors(options?.maxErrors, 'decodeQuery');
  // Built on the first problem only: a valid query (the common case) allocates nothing for errors.
  let problems: ErrorList | undefined;
  const report = (detail: CodedErrorDetail | (() => CodedErrorDetail)) => {
    problems ??= new ErrorList(max);
    problems.add(detail);
  };
  const { search } = ctx.request;
  const raw = parseQuery(search);
  /** Every value of `name`, in order. */
  const all = (name: string): string[] =>
    raw.repeated?.has(name) ? new URLSearchParams(search).getAll(name) : [raw.last[name]!];
  // The names each list-valued parameter was given by (`sort`, `sort[]`).
  let lists: Map<string, string[]> | undefined;
  const result: Record<string, unknown> = {};
  // Validators that answer asynchronously, awaited together once every parameter was looked at.
  let pending: Pending;
  const decodeInto = (name: string, codec: QueryDecoders[string], value: string | undefined) => {
    const decoder = decoderOf(codec);
    pending = settleOrCollect(pending, validateSchema(decoder, value), (validation) => {
      if (validation._tag === 'Right') result[name] = validation.right;
      else
        report({
          code: 'invalid-parameter',
          title: 'Invalid query parameter',
          detail: `"${name}" must be ${decoder.name}.`,
          source: { parameter: name },
        });
    });
  };
  const finish = (): DecodedQueryValues<Q> => {
    if (problems !== undefined) throw problems.toBadRequest();
    return result as DecodedQueryValues<Q>;
  };
  for (const name of Object.keys(raw.last)) {
    const parameter = listParameterOf(codecs, name);
    if (parameter !== undefined) {
      lists ??= new Map();
      lists.set(parameter, [...(lists.get(parameter) ?? []), name]);
      continue;
    }
    // What the errors repeat of the name: a prefix of a long one (docs/errors.md).
    const shown = echo(name);
    // Own names only: `?toString=1` must be an unknown parameter, not Object.prototype.toString.
    const codec = Object.hasOwn(codecs, name) ? codecs[name] : undefined;
    if (codec === undefined) {
      report(() => ({
        code: 'unknown-parameter',
        title: 'Unknown query parameter',
        detail: `"${shown}" is not a query parameter of this resource${allowedList(codecs)}.`,
        source: { parameter: shown },
      }));
      continue;
    }
    if (raw.repeated?.has(name)) {
      report({
        code: 'repeated-parameter',
        title: 'Repeated query parameter',
        detail: `"${shown}" may be given once.`,
        source: { parameter: shown },
      });
      continue;
    }
    decodeInto(name, codec, raw.last[name]);
  }
  if (lists !== undefined)
    for (const [parameter, names] of lists) {
      const text = listValues(search, names, all).join(LIST_SEPARATOR);
      decodeInto(parameter, codecs[parameter]!, text);
    }
  return afterPending(pending, finish);
}

/** The list-valued parameter a query name gives values of (`sort` for `sort` and `sort[]`), if any. */
function listParameterOf(codecs: QueryDecoders, name: string): string | undefined {
  const parameter = name.endsWith('[]') ? name.slice(0, -2) : name;
  return Object.hasOwn(codecs, parameter) && isListValued(decoderOf(codecs[parameter]!) as t.Any)
    ? parameter
    : undefined;
}

/** The values given under any of `names`, in the order the query has them. */
function listValues(search: string, names: readonly string[], all: (name: string) => string[]): string[] {
  if (names.length === 1) return all(names[0]!);
  // Both spellings (`sort=a&sort[]=b`): rare, so read the query again to keep the members' order.
  const values: string[] = [];
  for (const [name, value] of new URLSearchParams(search)) if (names.includes(name)) values.push(value);
  return values;
}

function allowedList(codecs: QueryDecoders): string {
  const names = Object.keys(codecs);
  return names.length === 0 ? ' (it takes none)' : ` (allowed: ${names.join(', ')})`;
}
