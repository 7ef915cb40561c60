/** `npm run example -- express|fastify|koa|hono|zod`: one framework example on PORT (default 3000). */
import { ALL_EXAMPLES, type ExampleName, serveExample } from './bookshop/serve-example.js';
import { configFromEnv } from './reference-app/config.js';

const name = process.argv[2] as ExampleName;
if (!ALL_EXAMPLES.includes(name)) {
  process.stderr.write(`usage: npm run example -- ${ALL_EXAMPLES.join('|')}\n`);
  process.exit(2);
}
const config = configFromEnv();
if (config.usingDevSecret) {
  process.stderr.write(
    'AUTH_SECRET is not set: using the documented development secret. Never do this in production.\n',
  );
}
const served = await serveExample(name, config, config.port);
process.stdout.write(`rest-conventions ${name} example listening on http://localhost:${served.port}\n`);
const stop = () => void served.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
