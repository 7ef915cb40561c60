import { describe, expect, it } from 'vitest';
import { barChart } from '../../bench/svg-chart.js';

const options = { title: 'Requests/s <loaded> & "shared"', unit: 'req/s', colours: { app: '#2b6cb0' } };

describe('the benchmark chart', () => {
  it('draws one bar per server, scaled to the largest value of all groups', () => {
    const svg = barChart(
      [
        {
          label: 'GET /books/7',
          bars: [
            { label: 'app', value: 2_000 },
            { label: 'fastify', value: 1_000 },
          ],
        },
        { label: 'GET /orders/{id}', bars: [{ label: 'app', value: 500, note: 'x1.30 Fastify' }] },
      ],
      options,
    );
    const widths = [...svg.matchAll(/<rect x="\d+" y="\d+" width="(\d+)"/g)].map((m) => Number(m[1]));
    expect(widths).toEqual([520, 260, 130]);
    expect(svg).toContain('fill="#2b6cb0"');
    expect(svg).toContain('fill="#999"');
    expect(svg).toContain('2,000 req/s');
    expect(svg).toContain('500 req/s  x1.30 Fastify');
  });

  it('escapes text and carries the title for screen readers', () => {
    const svg = barChart([{ label: 'a<b>&"c"', bars: [{ label: '<script>', value: 1 }] }], options);
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;');
    expect(svg).toContain('a&lt;b&gt;&amp;&quot;c&quot;');
    expect(svg).toMatch(/^<svg [^>]*>\n<title>Requests\/s &lt;loaded&gt; &amp; &quot;shared&quot;<\/title>/);
  });

  it('keeps a zero value visible as a one-pixel bar and never divides by zero', () => {
    const svg = barChart([{ label: 'none', bars: [{ label: 'app', value: 0 }] }], options);
    expect(svg).toMatch(/<rect x="\d+" y="\d+" width="1"/);
  });
});
