/**
 * `npm start` and `npm run cluster` as a user or a process manager runs them: SIGTERM goes to npm,
 * which passes it to the shell it started. The app must get it and drain, not be left running as an
 * orphan still holding its port.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type AppProcess, startNpmScript } from '../support/app-process.js';
import { serviceAvailable } from '../support/services.js';

const started: AppProcess[] = [];
afterEach(() => {
  // Whatever is left of a tree (an orphaned app included) is in the npm process's group.
  for (const { child } of started.splice(0)) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  }
});

/** Whether something still accepts connections at `url`. */
function accepting(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({
      host: hostname === 'localhost' ? '127.0.0.1' : hostname,
      port: Number(port),
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Polls until nothing accepts at any of `urls`, for at most `ms`; resolves the URLs still open. */
async function closedWithin(urls: readonly string[], ms: number): Promise<string[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const open: string[] = [];
    for (const url of urls) if (await accepting(url)) open.push(url);
    if (open.length === 0 || Date.now() > deadline) return open;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const servicesUp = (await serviceAvailable('PostgreSQL')) && (await serviceAvailable('Redis'));

describe('npm scripts and SIGTERM', () => {
  it('npm start: SIGTERM to npm stops the app, which closes its port', async () => {
    const app = await startNpmScript('start', {});
    started.push(app);
    expect(await accepting(app.urls[0]!)).toBe(true);
    app.child.kill('SIGTERM');
    // The app's own exit code, through npm: 0 after its drain.
    expect(await app.exited).toBe(0);
    expect(await closedWithin(app.urls, 5_000)).toEqual([]);
  }, 60_000);

  it('npm start: a SIGTERM the moment the app announces its port still drains', async () => {
    // A process manager may signal as soon as it reads the line. Four at once on two cores make the
    // gap between the line and the app's signal handlers wide enough to hit, if there is one: the
    // app then died of the signal (npm re-raises it) instead of exiting 0.
    const apps = await Promise.all(
      Array.from({ length: 4 }, () =>
        startNpmScript('start', {}, 1, [], (child) => child.kill('SIGTERM')).then((app) => {
          started.push(app);
          return app;
        }),
      ),
    );
    expect(await Promise.all(apps.map((app) => app.exited))).toEqual([0, 0, 0, 0]);
  }, 60_000);

  it.skipIf(!servicesUp)(
    'npm run cluster: SIGTERM to npm stops every instance',
    async () => {
      const cluster = await startNpmScript('cluster', { STORE_PREFIX: `npmscripts_${process.pid}` }, 2, [
        '2',
      ]);
      started.push(cluster);
      expect(cluster.urls).toHaveLength(2);
      cluster.child.kill('SIGTERM');
      expect(await cluster.exited).toBe(0);
      expect(await closedWithin(cluster.urls, 10_000)).toEqual([]);
    },
    90_000,
  );
});
