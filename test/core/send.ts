import type { App } from '../../src/app/app.js';
import { bodyBytes } from '../../src/core/response.js';
import type { ApiResponse, Logger } from '../../src/http/types.js';
import { requestView, type TestRequest } from '../support/request.js';
import { assertJsonApi, assertProblem } from '../support/schemas.js';

/** What a test looks at: the neutral response, and its JSON body already checked against its schema. */
export interface Sent {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed body, validated as JSON:API or RFC 9457 by its Content-Type; `undefined` when none. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary documents
  readonly body: any;
  /** The serialized body as text (`''` when none). */
  readonly text: string;
  readonly response: ApiResponse;
}

/**
 * Drive `app.handle` with an in-memory request and validate every JSON body it returns: a problem
 * document against RFC 9457, anything else JSON against JSON:API 1.0.
 */
export async function send(app: App, method: string, url: string, init: TestRequest = {}): Promise<Sent> {
  const response = await app.handle(requestView(method, url, init));
  const bytes = bodyBytes(response);
  const text = bytes === undefined ? '' : Buffer.from(bytes).toString('utf8');
  let body: unknown;
  if (text !== '') {
    const type = response.headers['content-type'] ?? '';
    if (!/json/.test(type)) throw new Error(`unexpected body of type "${type}": ${text.slice(0, 200)}`);
    body = JSON.parse(text);
    if (type.startsWith('application/problem+json')) assertProblem(body);
    else assertJsonApi(body);
  }
  return { status: response.status, headers: response.headers, body, text, response };
}

/** One logged event. */
export interface LogEntry {
  readonly level: 'error' | 'warn';
  readonly message: string;
  readonly fields: Record<string, unknown>;
}

/** A logger that keeps what it was told, for assertions (the real default writes to stderr). */
export function recordingLogger(): Logger & { readonly entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  return {
    entries,
    error: (fields, message) => entries.push({ level: 'error', message, fields }),
    warn: (fields, message) => entries.push({ level: 'warn', message, fields }),
  };
}
