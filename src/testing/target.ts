/** A request the kit sends. */
export interface TargetRequest {
  readonly method: string;
  /** The path, percent-encoded, without the query. */
  readonly path: string;
  /** The query without `?`. */
  readonly query?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
}

/** What came back. */
export interface TargetResponse {
  readonly status: number;
  /** Lower-case names; repeated fields joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
}

/** The API under test: anything that answers requests. */
export interface Target {
  send(request: TargetRequest): Promise<TargetResponse>;
  /** The URL requests go to, when there is one: failure reports show requests as `curl` commands to it. */
  readonly base?: string;
}

/** How long one request may take before the kit reports it (10 s). */
export const REQUEST_TIMEOUT_MS = 10_000;

/** A target reached over HTTP at `baseUrl` (`http://localhost:3000`, or with a prefix: `.../api`). */
export function urlTarget(baseUrl: string): Target {
  const base = new URL(baseUrl);
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new TypeError(`urlTarget: not an http(s) URL: ${baseUrl}`);
  const prefix = base.pathname.replace(/\/$/, '');
  return fetchTarget((request) => fetch(request), `${base.origin}${prefix}`);
}

/**
 * A target answered in process by a fetch handler (`toFetchHandler(app)`, Hono's `app.fetch`, ...):
 * no socket, the same requests.
 */
export function fetchTarget(
  handler: (request: Request) => Promise<Response> | Response,
  base = 'http://target.test',
): Target {
  return {
    base,
    async send(request) {
      const url = `${base}${request.path}${request.query ? `?${request.query}` : ''}`;
      const init: RequestInit = {
        method: request.method,
        headers: request.headers ?? {},
        redirect: 'manual',
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      };
      if (request.body !== undefined && request.method !== 'GET' && request.method !== 'HEAD')
        init.body = request.body as BodyInit;
      const response = await handler(new Request(url, init));
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      return { status: response.status, headers, text: await response.text() };
    },
  };
}
