import { exchangeReport, QuotaRefused } from './failure.js';
import type { TargetRequest, TargetResponse } from './target.js';

/**
 * The longest `Retry-After` the kit waits out (10 s): a rate limit's 429 usually asks for a second
 * or two. Past it, or without `Retry-After`, the property is reported as not checked.
 */
export const MAX_QUOTA_WAIT_SECONDS = 10;
/** How many times one request is sent again after a 429 before the kit gives up on it. */
const MAX_QUOTA_WAITS = 5;

/**
 * The seconds a `Retry-After` field asks for (RFC 9110 section 10.2.3: delay-seconds or an
 * HTTP-date), or `undefined` when absent or not one of the two.
 */
export function retryAfterSeconds(field: string | undefined, now = Date.now()): number | undefined {
  if (field === undefined) return undefined;
  const text = field.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) || !/GMT$/.test(text) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The error code a JSON:API or RFC 9457 error document names, for the report. */
function errorCode(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { errors?: Array<{ code?: unknown }>; code?: unknown; type?: unknown };
    const code = body.errors?.[0]?.code ?? body.code ?? body.type;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `send`, made a client that respects the API's quotas (RFC 6585 section 4): a 429 whose
 * `Retry-After` is at most {@link MAX_QUOTA_WAIT_SECONDS} is waited out and the request sent again
 * (a 429 executed nothing), up to {@link MAX_QUOTA_WAITS} times. Any other 429 rejects with
 * {@link QuotaRefused}: the API's own quota, not a convention, stopped the property.
 */
export function respectingQuotas(
  send: (request: TargetRequest) => Promise<TargetResponse>,
  base: string | undefined,
): (request: TargetRequest) => Promise<TargetResponse> {
  return async (request) => {
    for (let waits = 0; ; waits++) {
      const response = await send(request);
      if (response.status !== 429) return response;
      const seconds = retryAfterSeconds(response.headers['retry-after']);
      if (seconds === undefined || seconds > MAX_QUOTA_WAIT_SECONDS || waits >= MAX_QUOTA_WAITS) {
        const code = errorCode(response.text);
        const wait =
          seconds === undefined
            ? 'without a Retry-After the kit could wait out'
            : waits >= MAX_QUOTA_WAITS
              ? `${waits + 1} times in a row`
              : `with Retry-After: ${seconds} s, longer than the ${MAX_QUOTA_WAIT_SECONDS} s the kit waits`;
        throw new QuotaRefused(
          exchangeReport(
            `not checked: the API's own quota refused the kit (429${code === undefined ? '' : ` ${code}`}) ${wait}. ` +
              "That is the environment, not a broken convention: raise the quota for the kit's users, or run it later.",
            request,
            response,
            base,
          ),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    }
  };
}
