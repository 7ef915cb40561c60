/**
 * Fastify's own errors as the core's: its `statusCode` kept, a body its JSON parser refused as the
 * body decoder's 400, and the requests Fastify answers before any hook (`frameworkErrors`) sent
 * through the primitives (see `docs/adapters.md`).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/api-error.js';
import { renderError } from '../../errors/render.js';
import { type JsonText, malformedJsonError } from '../../validation/json-text.js';
import { type ConventionsOptions, conventionsRunner } from '../conventions.js';
import { type ClientAddressOption, clientAddressOption, incomingView } from '../node-host.js';
import { send } from './replies.js';

/** Options of the Fastify `conventions` plugin. */
export interface FastifyConventionsOptions extends ConventionsOptions, ClientAddressOption<FastifyRequest> {}

/** Fastify's JSON parser's errors for a body that is not JSON text, as the body decoder reads it. */
const JSON_BODY_ERRORS: Readonly<Record<string, JsonText & { ok: false }>> = {
  FST_ERR_CTP_EMPTY_JSON_BODY: { ok: false, reason: 'empty', message: '' },
  FST_ERR_CTP_INVALID_JSON_BODY: { ok: false, reason: 'syntax', message: '' },
};

/**
 * Fastify's own errors carry `statusCode`; validation errors are 400s with a readable message. A body
 * its JSON parser refused is the 400 `decodeJsonBody` gives (`malformed-json`), as in the other adapters.
 */
export function fromFastifyError(thrown: unknown): unknown {
  if (thrown instanceof ApiError || !(thrown instanceof Error)) return thrown;
  const { code } = thrown as FastifyError;
  if (typeof code === 'string' && Object.hasOwn(JSON_BODY_ERRORS, code)) {
    return malformedJsonError(JSON_BODY_ERRORS[code]!, thrown);
  }
  const status = (thrown as FastifyError).statusCode;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) return thrown;
  return new ApiError(status, { ...(status < 500 ? { detail: thrown.message } : {}), cause: thrown });
}

/**
 * Fastify answers some requests before any hook runs: a malformed URL (`FST_ERR_BAD_URL`), a path
 * parameter longer than `maxParamLength` (`FST_ERR_MAX_PARAM_LENGTH`, 414), an async constraint that
 * failed. Its own JSON then goes out without the primitives' headers. Pass this as the server's
 * `frameworkErrors` option, with the same options as {@link conventions}, so those requests also go
 * through the primitives (security headers, rate limit) and get an error document:
 * `Fastify({ frameworkErrors: conventionsFrameworkErrors(primitives) })`.
 */
export function conventionsFrameworkErrors(
  options: FastifyConventionsOptions,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  const run = conventionsRunner(options, 'fastify');
  const clientAddress = clientAddressOption(options.clientAddress, 'fastify conventionsFrameworkErrors');
  return function fastifyFrameworkErrors(error, request, reply) {
    const view = incomingView(
      request.raw,
      request.url,
      clientAddress?.(request) ?? request.ip,
      () => request.raw,
    );
    run(view, (ctx) => Promise.resolve(renderError(fromFastifyError(error), ctx)), fromFastifyError).then(
      (response) => send(reply, response, request.method),
      () => reply.code(500).send(),
    );
  };
}
