/**
 * The Hono peer (`bench/peers/hono-app.ts`) on `Bun.serve` or `Deno.serve`, as the Hono docs show
 * it on each: `app.fetch` served directly, the client's address from `hono/bun` or `hono/deno`
 * (imported on its own runtime only: `hono/deno` reads Deno's globals when it loads).
 */
import { honoPeer } from '../peers/hono-app.js';
import { runtime, serveFetch } from './serve.js';

const { getConnInfo } = runtime === 'bun' ? await import('hono/bun') : await import('hono/deno');
const app = honoPeer((c) => getConnInfo(c).remote.address);
serveFetch(app.fetch);
