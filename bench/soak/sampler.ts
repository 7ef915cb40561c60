/**
 * Preloaded into the app under soak (`node --expose-gc --import ./sampler.js app.mjs`): every
 * SOAK_SAMPLE_MS it collects garbage, then sends its memory to the parent over IPC. The heap after a
 * collection is what the app retains; a leak makes it grow. The app itself is unchanged.
 */
const every = Number(process.env.SOAK_SAMPLE_MS ?? 5000);
const collect = (globalThis as { gc?: () => void }).gc;
const timer = setInterval(() => {
  collect?.();
  const { rss, heapUsed } = process.memoryUsage();
  process.send?.({ kind: 'memory', at: Date.now(), rss, heapUsed });
}, every);
timer.unref();
