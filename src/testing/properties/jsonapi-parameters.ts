import fc from 'fast-check';
import { JSON_API } from '../../http/media-types.js';
import { resolveRef } from '../../openapi/refs.js';
import type { OpenApiDocument, OpenApiOperation } from '../../openapi/types.js';
import { operationsOf } from '../discover.js';
import { exampleBodies } from '../example-values.js';
import { exchangeReport, NotChecked } from '../failure.js';
import type { TargetRequest, TargetResponse } from '../target.js';
import { filledWithSubject } from './context.js';
import type { PropertyFactory } from './property.js';

/** Whether one of the operation's 2xx responses is declared as a JSON:API document. */
function answersJsonApi(document: OpenApiDocument, operation: OpenApiOperation): boolean {
  return Object.entries(operation.responses ?? {}).some(
    ([status, response]) => /^2/.test(status) && JSON_API in (resolveRef(document, response).content ?? {}),
  );
}

/** The JSON:API media type of the operation's request body, if it declares one. */
function jsonApiBody(document: OpenApiDocument, operation: OpenApiOperation) {
  const body = operation.requestBody;
  return body === undefined ? undefined : resolveRef(document, body).content?.[JSON_API];
}

/**
 * Extension and profile URIs no server knows: `https://<domain>/<segments>`, as JSON:API 1.1 ("Media
 * Type Parameters") has them, each a URI without spaces or quotes.
 */
const unknownUri = fc
  .tuple(fc.domain(), fc.array(fc.stringMatching(/^[a-z0-9-]{1,12}$/), { minLength: 1, maxLength: 3 }))
  .map(([domain, segments]) => `https://${domain}/${segments.join('/')}`);

/** One to three such URIs, space-separated, as an `ext` or `profile` value lists them. */
const uriList = fc.array(unknownUri, { minLength: 1, maxLength: 3 }).map((uris) => uris.join(' '));

/**
 * JSON:API 1.1 "Content Negotiation" (server responsibilities), for each operation whose 2xx answers
 * are JSON:API documents: an `Accept` whose JSON:API instances all name unsupported extensions is 406;
 * an unknown profile is ignored (the read answers as without it); a write whose JSON:API body names an
 * unsupported extension in `Content-Type` is 415. Reads whose plain JSON:API request does not answer
 * 2xx (a path the kit cannot fill with something that exists) are left out, and so are writes refused
 * with 401 or 403 (the kit's tokens lack their scope); when every write is, the property is not
 * checked, never a pass.
 */
export const jsonApiParametersProperty: PropertyFactory = (ctx) => {
  const operations = operationsOf(ctx.document).filter(([, , operation]) =>
    answersJsonApi(ctx.document, operation),
  );
  const reads = operations.flatMap(([template, method]) => {
    const path = filledWithSubject(ctx, template);
    return method === 'get' && path !== undefined ? [path] : [];
  });
  const writes = operations.flatMap(([template, method, operation]) => {
    const media = jsonApiBody(ctx.document, operation);
    const path = filledWithSubject(ctx, template);
    if (method !== 'post' || media === undefined || path === undefined) return [];
    return [{ path, body: exampleBodies(media, ctx.document)[0] ?? { data: {} } }];
  });
  if (reads.length === 0 && writes.length === 0) return [];
  const headers = () => ctx.bearer(ctx.principals.a);
  return [
    {
      id: 'jsonapi-parameters',
      name: 'JSON:API ext and profile: an Accept naming only unsupported extensions gets 406, an unknown profile is ignored, a body naming an unsupported extension gets 415',
      check: () =>
        ctx.run(
          fc.record({
            read: reads.length === 0 ? fc.constant(undefined) : fc.constantFrom(...reads),
            write: writes.length === 0 ? fc.constant(undefined) : fc.constantFrom(...writes),
            ext: uriList,
            profile: uriList,
            instances: fc.integer({ min: 1, max: 2 }),
          }),
          async ({ read, write, ext, profile, instances }) => {
            if (read !== undefined) {
              const get = (accept: string): TargetRequest => ({
                method: 'GET',
                path: read,
                headers: { ...headers(), accept },
              });
              const plain = await ctx.send(get(JSON_API));
              if (plain.status >= 200 && plain.status < 300) {
                const extended = get(Array(instances).fill(`${JSON_API}; ext="${ext}"`).join(', '));
                const refused = await ctx.send(extended);
                if (refused.status !== 406)
                  ctx.fail(
                    `an Accept naming only unsupported JSON:API extensions got ${refused.status}, not 406`,
                    extended,
                    refused,
                  );
                const profiled = get(`${JSON_API}; profile="${profile}"`);
                const ignored = await ctx.send(profiled);
                if (ignored.status !== plain.status)
                  ctx.fail(
                    `an unknown JSON:API profile was not ignored: ${ignored.status} where the same read without it got ${plain.status}`,
                    profiled,
                    ignored,
                  );
              }
            }
            if (write === undefined) return;
            // From the drawn write on, the first the kit's tokens may make: a write refused with 401 or
            // 403 says nothing of its media types.
            const order = [...writes.slice(writes.indexOf(write)), ...writes.slice(0, writes.indexOf(write))];
            let refusal: { request: TargetRequest; response: TargetResponse } | undefined;
            for (const { path, body } of order) {
              const post: TargetRequest = {
                method: 'POST',
                path,
                headers: {
                  ...headers(),
                  'content-type': `${JSON_API}; ext="${ext}"`,
                  'idempotency-key': crypto.randomUUID(),
                },
                body: JSON.stringify(body),
              };
              const answer = await ctx.send(post);
              if (answer.status === 401 || answer.status === 403) {
                refusal = { request: post, response: answer };
                continue;
              }
              if (answer.status !== 415)
                ctx.fail(
                  `a JSON:API body naming an unsupported extension in Content-Type got ${answer.status}, not 415`,
                  post,
                  answer,
                );
              return;
            }
            if (refusal !== undefined)
              throw new NotChecked(
                exchangeReport(
                  `not checked: the API refused the kit's token every write with a JSON:API body (${refusal.response.status}): give the kit tokens with the operations' scopes`,
                  refusal.request,
                  refusal.response,
                  ctx.base,
                ),
              );
          },
        ),
    },
  ];
};
