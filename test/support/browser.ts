import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`), or `CHROMIUM_PATH`. `.ci/run` installs it. */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Whether page tests can run: under `CI=true` a missing browser is a failure (it throws); elsewhere
 * the tests skip and one line says why.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (process.env.CI === 'true')
    throw new Error(`Chromium is not installed at ${CHROMIUM_PATH}, and CI=true requires it.`);
  console.warn(
    `skipping page tests: no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`,
  );
  return false;
}

/**
 * Headless Chromium for page tests, with no network beyond what the page asks for: background
 * networking, sync and component updates are off, and every start uses a fresh profile.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // A bound on a launch that hangs (playwright's default is 30 s): a loaded machine takes longer.
    timeout: 120_000,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}
