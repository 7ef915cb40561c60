/** The value, or a failure naming what was missing (narrows without a cast). */
export function present<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what}: no data (the response was not a documented success)`);
  return value;
}
