import { expect } from 'vitest';
import { DEFAULT_SECURITY_HEADERS } from '../../src/security/index.js';
import type { TestResponse } from './clients.js';

/** Every default security header is there, and nothing names the server's software. */
export function expectSecurityHeaders(response: TestResponse): void {
  for (const [name, value] of Object.entries(DEFAULT_SECURITY_HEADERS))
    expect(response.headers[name], name).toBe(value);
  expect(response.headers.server).toBeUndefined();
  expect(response.headers['x-powered-by']).toBeUndefined();
}
