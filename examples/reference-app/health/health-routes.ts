import { defineRoute, json } from 'rest-conventions/core';
import { ApiError } from 'rest-conventions/errors';
import { type ReadinessCheck, unreadyStores } from './readiness.js';

/** The health endpoints: public, never cached, never rate limited (docs/deployment.md). */
export const HEALTH_PATHS: readonly string[] = ['/health/live', '/health/ready'];

/** Fresh headers per response: middleware adds to a response's headers in place. */
const neverStored = (): Record<string, string> => ({ 'cache-control': 'no-store' });

/**
 * `GET /health/live`: the process is up and serving (a load balancer restarts it otherwise).
 * `GET /health/ready`: every configured shared store answered within a second (a load balancer
 * sends it traffic only then); otherwise 503 naming the stores that did not, and nothing more.
 */
export function healthRoutes(deps: { readonly readinessChecks: readonly ReadinessCheck[] }) {
  const checks = deps.readinessChecks;
  return [
    defineRoute({
      method: 'GET',
      path: '/health/live',
      summary: 'Liveness probe',
      responses: { 200: { description: 'The process is up', body: 'meta' } },
      handler: () => json(200, { meta: { status: 'pass' } }, neverStored()),
    }),
    defineRoute({
      method: 'GET',
      path: '/health/ready',
      summary: 'Readiness probe',
      responses: {
        200: { description: 'Every configured store answered', body: 'meta' },
        503: {
          description: 'A store did not answer within a second; the document names which',
          body: 'errors',
          headers: { 'Retry-After': { description: 'Seconds before asking again', required: true } },
        },
      },
      handler: async () => {
        const down = await unreadyStores(checks);
        if (down.length > 0) {
          throw new ApiError(503, {
            code: 'not-ready',
            detail: `Not ready: ${down.join(', ')} did not answer.`,
            headers: { ...neverStored(), 'retry-after': '5' },
          });
        }
        const stores = Object.fromEntries(checks.map((c) => [c.name, 'pass']));
        return json(200, { meta: { status: 'pass', stores } }, neverStored());
      },
    }),
  ];
}
