/**
 * How the Fastify driver hands an answer back to Fastify: the primitives' answer written over the
 * route's reply, the payload of a HEAD, and an answer sent whole (see `docs/adapters.md`).
 */
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { ApiResponse } from '../../http/types.js';
import { wireBody } from '../node-host.js';

/** A route's payload other than a stream: strings and bytes as they are, anything else as JSON. */
export function payloadBody(payload: unknown): string | Uint8Array | undefined {
  if (payload === undefined || payload === null) return undefined;
  if (typeof payload === 'string' || payload instanceof Uint8Array) return payload;
  return JSON.stringify(payload);
}

/**
 * Writes the primitives' answer over the reply, touching only the headers that differ from what
 * the route set (`before`): removing and setting every header again made up much of the driver's
 * cost. The route's `Set-Cookie` lines stay, after any the primitives add.
 */
export function writeAnswer(
  reply: FastifyReply,
  before: Record<string, unknown>,
  response: ApiResponse,
  setCookie: readonly string[],
): void {
  const { headers } = response;
  for (const name in before) {
    if (name === 'set-cookie') continue;
    const value = headers[name];
    if (value === undefined) reply.removeHeader(name);
    else if (before[name] !== value) reply.header(name, value);
  }
  for (const name in headers) {
    if (name === 'set-cookie') {
      reply.removeHeader(name);
      reply.header(name, [headers[name]!, ...setCookie]);
    } else if (!(name in before)) reply.header(name, headers[name]!);
  }
  if (reply.statusCode !== response.status) reply.code(response.status);
}

export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function send(reply: FastifyReply, response: ApiResponse, method: string): FastifyReply {
  reply.code(response.status);
  reply.headers(response.headers);
  if (method === 'HEAD') return reply.send(headPayload(response));
  const bytes = wireBody(response, method);
  return reply.send(payloadOf(bytes, response.headers));
}

/**
 * The payload to hand Fastify for the answer to a HEAD: the GET's bytes. For a GET route Fastify
 * answers HEAD itself (`exposeHeadRoutes`) with an `onSend` hook that runs after ours, sizes
 * `Content-Length` from the payload and drops it (it fails on `null`, the "no payload" of `onSend`);
 * node writes no body for a HEAD either. So a HEAD gets the GET's headers without its content
 * (RFC 9110 section 9.3.2). Without content (204, 304) it gets an empty stream: for anything else
 * that hook would add `Content-Length: 0`, which a 204 must not carry, nor a 304 whose 200 has
 * content (RFC 9110 section 8.6).
 */
export function headPayload(response: ApiResponse): Buffer | Readable | undefined {
  const bytes = wireBody(response, 'GET');
  if (bytes !== undefined) return asBuffer(bytes);
  return response.status === 204 || response.status === 304 ? Readable.from([]) : undefined;
}

const NO_BYTES = Buffer.alloc(0);

/**
 * The payload to hand Fastify: bytes whenever there is a `Content-Type` (for an empty payload
 * Fastify would add `charset` to a JSON type, for empty bytes without a type `octet-stream`; `null` would be sent as JSON).
 */
export function payloadOf(
  bytes: Uint8Array | undefined,
  headers: Record<string, string>,
): Buffer | undefined {
  if (bytes !== undefined) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return headers['content-type'] === undefined ? undefined : NO_BYTES;
}
