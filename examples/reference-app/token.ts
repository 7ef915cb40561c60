import { parseArgs } from 'node:util';
import { signHs256Token } from 'rest-conventions/auth';
import { configFromEnv } from './config.js';

/** `npm run token -- --sub 1 --scope "standards:read"`: prints a development token for the reference app. */
const { values } = parseArgs({
  options: {
    sub: { type: 'string', default: '1' },
    scope: { type: 'string', default: '' },
    'expires-in': { type: 'string', default: '3600' },
  },
});

const expiresInSeconds = Number(values['expires-in']);
if (!Number.isInteger(expiresInSeconds) || expiresInSeconds <= 0) {
  process.stderr.write('--expires-in must be a positive number of seconds\n');
  process.exit(2);
}
const token = await signHs256Token(configFromEnv().authSecret, {
  sub: values.sub,
  ...(values.scope === '' ? {} : { scope: values.scope }),
  expiresInSeconds,
});
process.stdout.write(`${token}\n`);
