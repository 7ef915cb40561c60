import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { toFetchHandler } from '../../src/adapters/fetch.js';
import { toNodeHandler } from '../../src/adapters/node.js';
import type { App } from '../../src/app/app.js';
import { assertDescribed } from './described-apps.js';
import { assertJsonApi, assertProblem } from './schemas.js';

/** A response as a test sees it, whichever adapter produced it. */
export interface TestResponse {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
  /** The parsed body (throws when it is not JSON). */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary documents
  readonly body: any;
}

interface TestRequestInit {
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
}

export interface TestClient {
  readonly adapter: 'node' | 'fetch';
  request(method: string, path: string, init?: TestRequestInit): Promise<TestResponse>;
  close(): Promise<void>;
}

/**
 * Every JSON body a test sees is checked against the official schema of its media type: JSON:API 1.0
 * for `application/vnd.api+json` and `application/json`, RFC 9457 for `application/problem+json`.
 */
function checked(status: number, headers: Record<string, string>, text: string): TestResponse {
  const type = headers['content-type'] ?? '';
  let body: unknown;
  // The convention documents; other JSON (an OpenAPI document) is not one of them.
  if (text !== '' && /^application\/(?:vnd\.api\+json|json|problem\+json)\b/.test(type)) {
    body = JSON.parse(text);
    if (type.startsWith('application/problem+json')) assertProblem(body);
    else assertJsonApi(body);
  }
  return {
    status,
    headers,
    text,
    get body() {
      if (body === undefined)
        throw new Error(`response has no JSON body (status ${status}, ${type}): ${text.slice(0, 200)}`);
      return body;
    },
  };
}

/** The app behind a real node:http server on a loopback port, spoken to with node:http requests. */
export async function nodeClient(app: App): Promise<TestClient> {
  const server = http.createServer(toNodeHandler(app));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new http.Agent({ keepAlive: true });
  return {
    adapter: 'node',
    request(method, path, init = {}) {
      return new Promise((resolve, reject) => {
        // node frames a body only for methods that usually carry one; state its length for the others.
        const framed = Object.keys(init.headers ?? {}).some((h) =>
          /^(content-length|transfer-encoding)$/i.test(h),
        );
        const sized = init.body === undefined || framed;
        const headers = sized
          ? init.headers
          : { ...init.headers, 'content-length': String(Buffer.byteLength(init.body!)) };
        const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const headers: Record<string, string> = {};
            for (const [name, value] of Object.entries(res.headers)) {
              if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
            }
            try {
              const text = Buffer.concat(chunks).toString('utf8');
              assertDescribed(app, {
                method,
                path: path.split('?')[0]!,
                status: res.statusCode ?? 0,
                headers,
                body: text,
              });
              resolve(checked(res.statusCode ?? 0, headers, text));
            } catch (error) {
              reject(error);
            }
          });
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(init.body);
      });
    },
    close: async () => {
      agent.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The app behind the fetch adapter, called in-process with WHATWG `Request` objects. */
export async function fetchClient(app: App): Promise<TestClient> {
  const handle = toFetchHandler(app);
  return {
    adapter: 'fetch',
    async request(method, path, init = {}) {
      const hasBody = init.body !== undefined && method !== 'GET' && method !== 'HEAD';
      const request = new Request(`http://api.test${path}`, {
        method,
        ...(init.headers ? { headers: init.headers } : {}),
        ...(hasBody ? { body: init.body as BodyInit, duplex: 'half' } : {}),
      } as RequestInit);
      const response = await handle(request, { remoteAddress: '127.0.0.1' });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const text = await response.text();
      assertDescribed(app, {
        method,
        path: path.split('?')[0]!,
        status: response.status,
        headers,
        body: text,
      });
      return checked(response.status, headers, text);
    },
    close: async () => {},
  };
}

/** Both adapters, for `describe.each`: the same app must behave identically through each. */
export const ADAPTERS = [
  { adapter: 'node', connect: nodeClient },
  { adapter: 'fetch', connect: fetchClient },
] as const;
