import type * as t from 'io-ts';
import type { ErrorDetail } from '../errors/api-error.js';
import { echo } from '../errors/echo.js';
import type { Context } from '../http/types.js';
import { checkMaxErrors, ErrorList } from './error-cap.js';

type QueryCodecs = Readonly<Record<string, t.Any>>;
type Decoded<Q extends QueryCodecs> = { readonly [K in keyof Q]?: t.TypeOf<Q[K]> };

/**
 * Decode query parameters by name (`author`, `page[size]`, `filter[status]`, ...). A parameter that is
 * not listed, given twice, or invalid is a 400 whose error names it in `source.parameter`
 * (JSON:API 1.0 "Query Parameters"), at most `maxErrors` of them (default `MAX_ERRORS`, 20; the rest are
 * counted in `meta.omittedErrors`). Absent parameters are absent in the result.
 *
 * @example const { author } = decodeQuery(ctx, { author: text({ maxLength: 200 }) });
 */
export function decodeQuery<Q extends QueryCodecs>(
  ctx: Context,
  codecs: Q,
  options?: { readonly maxErrors?: number },
): Decoded<Q> {
  if (ctx.request.search === '') return {};
  const max = checkMaxErrors(options?.maxErrors, 'decodeQuery');
  // Built on the first problem only: a valid query (the common case) allocates nothing for errors.
  let problems: ErrorList | undefined;
  const report = (detail: ErrorDetail | (() => ErrorDetail)) => {
    problems ??= new ErrorList(max);
    problems.add(detail);
  };
  const result: Record<string, unknown> = {};
  for (const name of Object.keys(ctx.query)) {
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
    const values = ctx.queryAll(name);
    if (values.length > 1) {
      report({
        code: 'repeated-parameter',
        title: 'Repeated query parameter',
        detail: `"${shown}" may be given once.`,
        source: { parameter: shown },
      });
      continue;
    }
    const decoded = codec.decode(values[0]);
    if (decoded._tag === 'Left') {
      report({
        code: 'invalid-parameter',
        title: 'Invalid query parameter',
        detail: `"${name}" must be ${codec.name}.`,
        source: { parameter: name },
      });
    } else {
      result[name] = decoded.right;
    }
  }
  if (problems !== undefined) throw problems.toBadRequest();
  return result as Decoded<Q>;
}

function allowedList(codecs: QueryCodecs): string {
  const names = Object.keys(codecs);
  return names.length === 0 ? ' (it takes none)' : ` (allowed: ${names.join(', ')})`;
}
