import type { Inputs } from '../http/types.js';

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const UNSAFE = /[\s<>"\\^`{|}]/;

/**
 * Check a URL that goes into a `Link` header as-is: an absolute `http(s)` URL, bare (not quoted, not in
 * angle brackets, no spaces). Throws a `TypeError` naming `option`.
 */
export function absoluteUrl(option: string, value: unknown, owner: string): string {
  if (typeof value !== 'string')
    throw new TypeError(`${owner}: "${option}" must be a URL string, got ${typeof value}`);
  if (/^\s*[<"']/.test(value) || UNSAFE.test(value)) {
    throw new TypeError(
      `${owner}: "${option}" must be a bare URL, without quotes, angle brackets or spaces, got ${JSON.stringify(value)}`,
    );
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(
      `${owner}: "${option}" must be an absolute URL such as "https://example.com/docs", got ${JSON.stringify(value)}`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError(`${owner}: "${option}" must be an http or https URL, got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * A successor: an absolute URL or an absolute path (`/v2/users/{id}`), whose `{params}` are filled
 * from the request's route parameters (a decoded one as its text: `7` for the number 7). Returns the
 * function that builds it for a request.
 */
export function successorTemplate(value: unknown, owner: string): (params: Inputs) => string {
  if (typeof value !== 'string')
    throw new TypeError(`${owner}: "successor" must be a URL string, got ${typeof value}`);
  const filled = value.replace(PLACEHOLDER, 'x');
  if (filled.startsWith('/') && !filled.startsWith('//')) {
    if (UNSAFE.test(filled) || /[?#]/.test(filled)) {
      throw new TypeError(
        `${owner}: "successor" must be an absolute URL or a bare absolute path with {param} placeholders, got ${JSON.stringify(value)}`,
      );
    }
  } else {
    absoluteUrl('successor', filled, owner);
  }
  if (filled === value) return () => value;
  return (params) =>
    value.replace(PLACEHOLDER, (_, name: string) => {
      const param = params[name];
      if (param === undefined)
        throw new Error(`${owner}: the route has no {${name}} parameter for the successor ${value}`);
      return encodeURIComponent(String(param));
    });
}
