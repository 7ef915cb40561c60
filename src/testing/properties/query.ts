import fc from 'fast-check';
import { acceptQueryTypes } from '../../http/accept-query.js';
import { essence } from '../../http/media-types.js';
import { resolveRef } from '../../openapi/refs.js';
import type { OpenApiOperation } from '../../openapi/types.js';
import { operationsOf } from '../discover.js';
import { exampleBodies } from '../example-values.js';
import { exchangeReport, NotChecked } from '../failure.js';
import type { TargetRequest } from '../target.js';
import { filledWithSubject, type KitContext } from './context.js';
import type { ConventionProperty, PropertyFactory } from './property.js';

/** Media types sent as the wrong one: the first the operation does not take is used. */
const WRONG_MEDIA_TYPES = ['text/plain', 'application/xml', 'application/octet-stream'];

/**
 * A QUERY operation (RFC 10008) of the document, sent as principal a with the document's example
 * body in its declared media type: it answers 2xx without an `Idempotency-Key` (the method is
 * idempotent, section 2), with `Accept-Query` naming that media type (section 3); another media type
 * gets 415 (section 2.1); and a result with an ETag answers its `If-None-Match` with 304 (section 2.3,
 * RFC 9110 section 13.1.2). A 401 or 403 for the declared request (the kit's tokens lack the
 * operation's scope) is not checked, never a pass.
 */
function queryOperationProperty(ctx: KitContext, template: string, operation: OpenApiOperation) {
  const content = resolveRef(ctx.document, operation.requestBody ?? { content: {} }).content ?? {};
  const declared = Object.keys(content)[0];
  const name = `QUERY ${template} answers its declared media type with 2xx and Accept-Query, another with 415, its ETag with 304, and needs no Idempotency-Key`;
  return {
    id: 'query',
    name,
    check: () =>
      ctx.run(
        fc.constant(null),
        async () => {
          const path = filledWithSubject(ctx, template);
          if (declared === undefined || path === undefined) return;
          const body = exampleBodies(content[declared]!, ctx.document)[0];
          const request = (contentType: string, headers: Record<string, string> = {}): TargetRequest => ({
            method: 'QUERY',
            path,
            headers: { ...ctx.bearer(ctx.principals.a), 'content-type': contentType, ...headers },
            body: typeof body === 'string' ? body : JSON.stringify(body),
          });
          const asDeclared = request(declared);
          const answer = await ctx.send(asDeclared);
          if (answer.status === 401 || answer.status === 403)
            throw new NotChecked(
              exchangeReport(
                `not checked: the API refused the kit's token a QUERY (${answer.status}): give the kit tokens with the operation's scopes`,
                asDeclared,
                answer,
                ctx.base,
              ),
            );
          if (answer.status === 428 || /idempotency-key/i.test(answer.text))
            ctx.fail('a QUERY required an Idempotency-Key: QUERY is idempotent', asDeclared, answer);
          if (answer.status < 200 || answer.status > 299)
            ctx.fail(`a QUERY in its declared media type ${declared} did not answer 2xx`, asDeclared, answer);
          const accepted = answer.headers['accept-query'];
          if (accepted === undefined) ctx.fail('a QUERY answered without Accept-Query', asDeclared, answer);
          if (!acceptQueryTypes(accepted).includes(essence(declared)))
            ctx.fail(`Accept-Query does not name the declared media type ${declared}`, asDeclared, answer);
          const wrongType = WRONG_MEDIA_TYPES.find((type) => !(type in content))!;
          const wrong = request(wrongType);
          const refused = await ctx.send(wrong);
          if (refused.status !== 415)
            ctx.fail(
              `a QUERY in a media type it does not take (${wrongType}) did not get 415`,
              wrong,
              refused,
            );
          const etag = answer.headers.etag;
          if (etag === undefined) return;
          const conditional = request(declared, { 'if-none-match': etag });
          const again = await ctx.send(conditional);
          if (again.status !== 304)
            ctx.fail('a QUERY with the current ETag in If-None-Match did not get 304', conditional, again);
        },
        1,
      ),
  } satisfies ConventionProperty;
}

/** One property per QUERY operation of the document (3.1 `x-oai-additionalOperations`, 3.2 `query`). */
export const queryProperty: PropertyFactory = (ctx) =>
  operationsOf(ctx.document)
    .filter(([, method]) => method === 'query')
    .map(([template, , operation]) => queryOperationProperty(ctx, template, operation));
