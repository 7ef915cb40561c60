/**
 * How the Express driver sees a route's response: Express has no after-phase, so what the route
 * writes (`res.send`, `res.json`, `res.end`) is caught before it reaches the socket, at `res.end`,
 * and handed to the primitives as an `ApiResponse` (see `docs/adapters.md`).
 */
import type { ServerResponse } from 'node:http';
import type { ApiResponse } from '../../http/types.js';
import { neutralHeaders } from '../conventions.js';

/** What the route handler sent, caught before it reaches the socket. */
export interface Captured {
  readonly response: ApiResponse;
  readonly setCookie: readonly string[];
}

/**
 * One route response being caught: its chunks until `res.end`, then the response as the primitives
 * see it. A capture made while another is under way (a `conventions` on a route, inside the app's)
 * keeps the outer one, which catches what the inner one writes once its own primitives are done.
 */
class Capture {
  private chunks: Buffer[] | undefined = undefined;

  constructor(
    readonly outer: Capture | undefined,
    private readonly settle: (captured: Captured) => void,
  ) {}

  /** A `res.write` chunk, copied: its callback runs at once, and the caller may then reuse it. */
  write(chunk: unknown, encoding: unknown): void {
    const bytes = chunkBytes(chunk, encoding);
    if (bytes === undefined) return;
    if (this.chunks === undefined) this.chunks = [];
    this.chunks.push(Buffer.from(bytes));
  }

  /** The `res.end` chunk, kept as it is when it is the whole body (nothing may reuse it after end). */
  end(res: ServerResponse, chunk: unknown, encoding: unknown): void {
    const last = chunkBytes(chunk, encoding);
    let raw: Buffer;
    if (this.chunks === undefined) raw = last ?? EMPTY;
    else {
      if (last !== undefined) this.chunks.push(last);
      raw = Buffer.concat(this.chunks);
    }
    const { headers, setCookie } = neutralHeaders(res.getHeaders());
    this.settle({ response: { status: res.statusCode, headers, raw }, setCookie });
  }
}

const EMPTY = Buffer.alloc(0);

/** A chunk as a Buffer: strings in their encoding (UTF-8 unless named), byte arrays without a copy. */
function chunkBytes(chunk: unknown, encoding: unknown): Buffer | undefined {
  if (chunk === undefined || chunk === null || typeof chunk === 'function') return undefined;
  if (typeof chunk === 'string')
    return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (Buffer.isBuffer(chunk)) return chunk;
  const bytes = chunk as Uint8Array;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The capture under way on each response that has one. */
const CAPTURES = new WeakMap<ServerResponse, Capture>();

interface WritingMethods {
  readonly writeHead: ServerResponse['writeHead'];
  readonly write: ServerResponse['write'];
  readonly end: ServerResponse['end'];
}

/**
 * `writeHead`, `write` and `end` that catch what is written to a response with a capture under
 * way, and hand anything else to `original`.
 */
function capturingMethods(original: WritingMethods): WritingMethods {
  return {
    writeHead: function capturedWriteHead(
      this: ServerResponse,
      status: number,
      reasonOrHeaders?: unknown,
      maybeHeaders?: unknown,
    ) {
      // biome-ignore lint/complexity/noArguments: passed on as they came
      if (!CAPTURES.has(this)) return original.writeHead.apply(this, arguments as never);
      this.statusCode = status;
      // writeHead(status, [reason], [headers]): headers as an object or a flat [name, value, ...] list.
      const headers =
        typeof reasonOrHeaders === 'object' && reasonOrHeaders !== null ? reasonOrHeaders : maybeHeaders;
      if (Array.isArray(headers)) {
        for (let i = 0; i + 1 < headers.length; i += 2)
          this.setHeader(String(headers[i]), headers[i + 1] as string);
      } else if (typeof headers === 'object' && headers !== null) {
        for (const [name, value] of Object.entries(headers as Record<string, string>))
          this.setHeader(name, value);
      }
      return this;
    } as ServerResponse['writeHead'],
    write: function capturedWrite(
      this: ServerResponse,
      chunk: unknown,
      encoding?: unknown,
      callback?: unknown,
    ) {
      const capture = CAPTURES.get(this);
      // biome-ignore lint/complexity/noArguments: passed on as they came
      if (capture === undefined) return original.write.apply(this, arguments as never);
      capture.write(chunk, encoding);
      const done = typeof encoding === 'function' ? encoding : callback;
      if (typeof done === 'function') queueMicrotask(done as () => void);
      return true;
    } as ServerResponse['write'],
    end: function capturedEnd(this: ServerResponse, chunk?: unknown, encoding?: unknown, callback?: unknown) {
      const capture = CAPTURES.get(this);
      // biome-ignore lint/complexity/noArguments: passed on as they came
      if (capture === undefined) return original.end.apply(this, arguments as never);
      if (capture.outer === undefined) CAPTURES.delete(this);
      else CAPTURES.set(this, capture.outer);
      capture.end(this, chunk, typeof encoding === 'function' ? undefined : encoding);
      const done = typeof chunk === 'function' ? chunk : typeof encoding === 'function' ? encoding : callback;
      if (typeof done === 'function') this.once('finish', done as () => void);
      return this;
    } as ServerResponse['end'],
  };
}

/** Apps' response prototypes (`app.response`) known to lead to Express's own, patched. */
const READY = new WeakSet<object>();

/**
 * Express's own response prototype (`express.response`, below every app's `app.response`), with
 * its `writeHead`, `write` and `end` made capturing; or `undefined` when `res` is not an Express
 * response. Patched once, on the first request, and shared by every app: responses without a
 * capture go straight through. On the prototype rather than on each response because an own
 * property added to a response costs V8 a new hidden class per request (Express gives every
 * response a fresh one): patching each response made most of the driver's overhead
 * (docs/benchmarks.md, "Adapter overhead").
 */
function capturingPrototype(res: ServerResponse): boolean {
  const appResponse = Object.getPrototypeOf(res) as object | null;
  if (appResponse === null) return false;
  if (READY.has(appResponse)) return true;
  let base: object | null = appResponse;
  while (base !== null && Object.hasOwn(base, 'app')) base = Object.getPrototypeOf(base);
  if (base === appResponse || base === null || !Object.hasOwn(base, 'send')) return false;
  if (!Object.hasOwn(base, CAPTURING)) {
    const { writeHead, write, end } = base as ServerResponse;
    Object.assign(base, capturingMethods({ writeHead, write, end }), { [CAPTURING]: true });
  }
  READY.add(appResponse);
  return true;
}

const CAPTURING = Symbol('rest-conventions capturing');

/**
 * Express has no after-phase, so the response the route writes (`res.send`, `res.json`, `res.end`)
 * is caught at `res.end`, given to the primitives as an `ApiResponse`, and what they return is
 * written instead. The route's body is buffered, whole. Express's response prototype catches it
 * ({@link capturingPrototype}); where a middleware before this one put its own `writeHead`,
 * `write` or `end` on the response (as `compression` does), the capture goes on top of them as own
 * methods of this one response, restored at `end` (the approach of `on-headers` and `compression`).
 */
export function capture(res: ServerResponse): Promise<Captured> {
  return new Promise((resolve) => {
    const caught = new Capture(CAPTURES.get(res), resolve);
    if (
      Object.hasOwn(res, 'end') ||
      Object.hasOwn(res, 'write') ||
      Object.hasOwn(res, 'writeHead') ||
      !capturingPrototype(res)
    )
      captureOwn(res);
    CAPTURES.set(res, caught);
  });
}

/** Own capturing methods on one response, put back at its `end`. */
function captureOwn(res: ServerResponse): void {
  const { writeHead, write, end } = res;
  const methods = capturingMethods({ writeHead, write, end });
  res.writeHead = methods.writeHead;
  res.write = methods.write;
  res.end = function restoringEnd(this: ServerResponse) {
    res.writeHead = writeHead;
    res.write = write;
    res.end = end;
    // biome-ignore lint/complexity/noArguments: passed on as they came
    return methods.end.apply(this, arguments as never);
  } as ServerResponse['end'];
}
