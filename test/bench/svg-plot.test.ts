import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stackedLineChart } from '../../bench/soak/svg-plot.js';

/** The line's points back from the SVG path, in pixels. */
function linePoints(svg: string): Array<[number, number]> {
  const d = /<path d="([^"]*)"/.exec(svg)?.[1] ?? '';
  return d.split(' ').map((step) => step.slice(1).split(',').map(Number) as [number, number]);
}

describe('the soak plot', () => {
  it('is one standalone SVG with a titled panel per quantity', () => {
    const svg = stackedLineChart('Soak <run>', [
      {
        title: 'RSS',
        unit: 'MB',
        points: [
          [0, 80],
          [5, 81],
        ],
      },
      {
        title: 'p99 <latency>',
        unit: 'ms',
        points: [
          [0, 4],
          [5, 6],
        ],
      },
    ]);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.match(/<path /g)).toHaveLength(2);
    expect(svg).toContain('<title>Soak &lt;run&gt;</title>');
    expect(svg).toContain('RSS (MB)');
    expect(svg).toContain('p99 &lt;latency&gt; (ms)');
  });

  it('keeps the order of the points and draws a larger value higher, from a zero baseline', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(1000), fc.double({ min: 0, max: 1e4, noNaN: true })), {
          minLength: 2,
          maxLength: 30,
        }),
        (raw) => {
          const points = raw.map(([x, y], i) => [i * 5 + x / 1000, y] as const);
          const drawn = linePoints(stackedLineChart('t', [{ title: 't', unit: 'u', points }]));
          expect(drawn).toHaveLength(points.length);
          for (let i = 1; i < points.length; i++) {
            expect(drawn[i]![0]).toBeGreaterThanOrEqual(drawn[i - 1]![0]);
            const [a, b] = [points[i - 1]![1], points[i]![1]];
            // SVG y grows downwards; rounding to 0.1 px may merge very close values.
            if (b > a) expect(drawn[i]![1]).toBeLessThanOrEqual(drawn[i - 1]![1]);
            if (b < a) expect(drawn[i]![1]).toBeGreaterThanOrEqual(drawn[i - 1]![1]);
          }
          // Nothing is drawn below the zero line nor above the panel.
          for (const [, y] of drawn) expect(y).toBeGreaterThanOrEqual(28);
          for (const [, y] of drawn) expect(y).toBeLessThanOrEqual(170 - 30);
        },
      ),
    );
  });
});
