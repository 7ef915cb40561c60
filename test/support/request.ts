import type { HeaderBag, RequestView } from '../../src/http/types.js';

/** What a test request may specify. */
export interface TestRequest {
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  readonly remoteAddress?: string;
}

/** A neutral RequestView built in memory, for driving `app.handle` without a socket. */
export function requestView(method: string, url: string, init: TestRequest = {}): RequestView {
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(init.headers ?? {})) lower[name.toLowerCase()] = value;
  const headers: HeaderBag = { get: (name) => lower[name] };
  const query = url.indexOf('?');
  const body =
    init.body === undefined ? undefined : typeof init.body === 'string' ? Buffer.from(init.body) : init.body;
  return {
    method: method.toUpperCase(),
    path: query === -1 ? url : url.slice(0, query),
    search: query === -1 ? '' : url.slice(query + 1),
    headers,
    remoteAddress: init.remoteAddress ?? '127.0.0.1',
    body: async function* () {
      if (body !== undefined) yield body;
    },
  };
}
