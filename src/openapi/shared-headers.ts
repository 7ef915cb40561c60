import type { OpenApiHeader, OpenApiOperation, OpenApiResponse } from './types.js';

/**
 * Every response header object, written once in `components.headers` and referenced where it is used:
 * the same `RateLimit` or `Cache-Control` would otherwise repeat on every response of every operation.
 */
export function shareHeaders(
  paths: Record<string, Record<string, OpenApiOperation>>,
): Record<string, OpenApiHeader> {
  const shared: Record<string, OpenApiHeader> = {};
  const names = new Map<string, string>();
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      for (const response of Object.values(operation.responses) as OpenApiResponse[]) {
        if (response.headers === undefined) continue;
        const refs: Record<string, OpenApiHeader> = {};
        for (const [name, header] of Object.entries(response.headers)) {
          const key = `${name}\u0000${JSON.stringify(header)}`;
          let component = names.get(key);
          if (component === undefined) {
            component = name;
            for (let n = 2; shared[component] !== undefined; n++) component = `${name}-${n}`;
            shared[component] = header;
            names.set(key, component);
          }
          refs[name] = { $ref: `#/components/headers/${component}` };
        }
        (response as { headers?: Record<string, OpenApiHeader> }).headers = refs;
      }
    }
  }
  return shared;
}
