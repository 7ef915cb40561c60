/**
 * Every fast-check property of `npm test` runs from one fixed seed, so that a commit gives the same
 * result on every run (docs/testing.md, "Reproducible runs"). `npm run test:explore` sets
 * `FC_SEED=random` to draw fresh seeds; `FC_SEED=<n>` replays one it reported.
 */
import fc from 'fast-check';

/** The seed of `npm test`. */
export const FIXED_SEED = 20261125;

const asked = process.env.FC_SEED;
if (asked !== 'random') {
  const seed = asked === undefined || asked === '' ? FIXED_SEED : Number(asked);
  if (!Number.isSafeInteger(seed)) throw new TypeError(`FC_SEED: not an integer: ${asked}`);
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
}
