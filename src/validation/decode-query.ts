import { isLeft } from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import type { Context } from '../core/types.js';
import { ApiError, type ErrorDetail } from '../errors/api-error.js';

type QueryCodecs = Readonly<Record<string, t.Any>>;
type Decoded<Q extends QueryCodecs> = { readonly [K in keyof Q]?: t.TypeOf<Q[K]> };

/**
 * Decode query parameters by name (`author`, `page[size]`, `filter[status]`, ...). A parameter that is
 * not listed, given twice, or invalid is a 400 whose error names it in `source.parameter`
 * (JSON:API 1.0 "Query Parameters"). Absent parameters are absent in the result.
 *
 * @example const { author } = decodeQuery(ctx, { author: text({ maxLength: 200 }) });
 */
export function decodeQuery<Q extends QueryCodecs>(ctx: Context, codecs: Q): Decoded<Q> {
  if (ctx.request.search === '') return {};
  const problems: ErrorDetail[] = [];
  const result: Record<string, unknown> = {};
  for (const name of Object.keys(ctx.query)) {
    // Own names only: `?toString=1` must be an unknown parameter, not Object.prototype.toString.
    const codec = Object.hasOwn(codecs, name) ? codecs[name] : undefined;
    if (codec === undefined) {
      problems.push({
        code: 'unknown-parameter',
        title: 'Unknown query parameter',
        detail: `"${name}" is not a query parameter of this resource${allowedList(codecs)}.`,
        source: { parameter: name },
      });
      continue;
    }
    const values = ctx.queryAll(name);
    if (values.length > 1) {
      problems.push({
        code: 'repeated-parameter',
        title: 'Repeated query parameter',
        detail: `"${name}" may be given once.`,
        source: { parameter: name },
      });
      continue;
    }
    const decoded = codec.decode(values[0]);
    if (isLeft(decoded)) {
      problems.push({
        code: 'invalid-parameter',
        title: 'Invalid query parameter',
        detail: `"${name}" must be ${codec.name}.`,
        source: { parameter: name },
      });
    } else {
      result[name] = decoded.right;
    }
  }
  if (problems.length > 0) throw new ApiError(400, { errors: problems });
  return result as Decoded<Q>;
}

function allowedList(codecs: QueryCodecs): string {
  const names = Object.keys(codecs);
  return names.length === 0 ? ' (it takes none)' : ` (allowed: ${names.join(', ')})`;
}
