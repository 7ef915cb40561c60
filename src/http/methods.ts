/**
 * What the library knows of each request method, in one table: whether it is safe (RFC 9110
 * section 9.2.1), idempotent (section 9.2.2), and whether its request content has defined semantics
 * (section 9.3). A method joins with one row, as QUERY did (RFC 10008 section 2: safe, idempotent,
 * its content the query).
 * Any method may be routed, and a method with no route on a known path is answered 405 with `Allow`;
 * a method missing from the table is taken as neither safe nor idempotent, as section 9.2 asks.
 */

/** One method's properties. */
export interface MethodProperties {
  /** Read-only: no state changes the client asked for (RFC 9110 section 9.2.1). */
  readonly safe: boolean;
  /** Repeating it has the effect of sending it once (RFC 9110 section 9.2.2). */
  readonly idempotent: boolean;
  /** Its request content has defined semantics: a body to read, limit and validate (section 9.3). */
  readonly content: boolean;
}

/** A read: safe and idempotent, its request content without defined semantics. */
const SAFE: MethodProperties = { safe: true, idempotent: true, content: false };

/**
 * The methods of RFC 9110 section 9.3, PATCH (RFC 5789) and QUERY (RFC 10008), by name. CONNECT is
 * left out: a node server hands it to its `connect` listener, never to an app.
 */
export const METHODS: Readonly<Record<string, MethodProperties>> = {
  GET: SAFE,
  HEAD: SAFE,
  OPTIONS: SAFE,
  TRACE: SAFE,
  PUT: { safe: false, idempotent: true, content: true },
  DELETE: { safe: false, idempotent: true, content: false },
  POST: { safe: false, idempotent: false, content: true },
  PATCH: { safe: false, idempotent: false, content: true },
  QUERY: { safe: true, idempotent: true, content: true },
};

/** Whether `method` is safe (RFC 9110 section 9.2.1); unknown methods are not. */
export function isSafeMethod(method: string): boolean {
  return METHODS[method]?.safe === true;
}

/** The known methods that are not idempotent (POST, PATCH): those a retry may repeat. */
export function nonIdempotentMethods(): string[] {
  return Object.keys(METHODS).filter((name) => !METHODS[name]!.idempotent);
}

/** Whether `method`'s request content has defined semantics (RFC 9110 section 9.3). */
export function takesContent(method: string): boolean {
  return METHODS[method]?.content === true;
}
