/**
 * A request's identity as every runner gives it: the request id (taken from the client's header when
 * it looks sane, else generated) and the `X-Request-Id` and `Date` (RFC 9110 section 6.6.1) fields of
 * the answer. One implementation for `createApp` and the framework adapters (`docs/errors.md`, "Request
 * ids"), so a framework app and a rest-conventions app answer alike.
 */

import type { ApiResponse, Context, Logger, RequestView } from '../http/types.js';
import { RequestContext } from './context.js';
import { httpDate } from './http-date.js';

/** The request id options of `createApp` and `conventions(...)`. */
export interface RequestIdOptions {
  /** The header to read and echo (default `x-request-id`). */
  readonly header?: string;
  /** The generator of new ids (default `crypto.randomUUID`). */
  readonly generate?: () => string;
}

/** What a runner needs: a new context for a request, and the identity fields of its answer. */
export interface RequestIdentity {
  /** The lower-case header name the id is read from and echoed in. */
  readonly header: string;
  contextOf(request: RequestView, logger: Logger): Context;
  /** Sets the request id header and, unless one is there, `Date` on the answer. */
  stamp(response: ApiResponse, ctx: Context): ApiResponse;
}

// A client's id is echoed only when it is short and plain: no field or log injection through it.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,200}$/;

/** The request identity of a runner, from its options (read once). */
export function requestIdentity(options: RequestIdOptions | undefined): RequestIdentity {
  const header = (options?.header ?? 'x-request-id').toLowerCase();
  const generate = options?.generate ?? (() => crypto.randomUUID());
  return {
    header,
    contextOf(request, logger) {
      const sent = request.headers.get(header);
      return new RequestContext(
        request,
        sent !== undefined && SANE_REQUEST_ID.test(sent) ? sent : generate(),
        logger,
      );
    },
    stamp(response, ctx) {
      const { headers } = response;
      headers[header] = ctx.requestId;
      headers.date ??= httpDate();
      return response;
    },
  };
}
