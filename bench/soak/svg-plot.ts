/** One panel of the soak plot: a quantity over time. */
export interface Panel {
  readonly title: string;
  readonly unit: string;
  /** [seconds since start, value] pairs, in time order. */
  readonly points: ReadonlyArray<readonly [number, number]>;
}

const WIDTH = 720;
const PANEL_HEIGHT = 170;
const LEFT = 64;
const RIGHT = 16;
const TOP = 28;
const BOTTOM = 30;

function escapeXml(text: string): string {
  return text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

/** A rounded step for axis ticks: 1, 2 or 5 times a power of ten, about `span / 4`. */
function tickStep(span: number): number {
  const rough = span / 4 || 1;
  const power = 10 ** Math.floor(Math.log10(rough));
  const scaled = rough / power;
  return (scaled < 1.5 ? 1 : scaled < 3.5 ? 2 : 5) * power;
}

function panelSvg(panel: Panel, index: number): string {
  const top = index * PANEL_HEIGHT;
  const plotW = WIDTH - LEFT - RIGHT;
  const plotH = PANEL_HEIGHT - TOP - BOTTOM;
  const xs = panel.points.map(([x]) => x);
  const ys = panel.points.map(([, y]) => y);
  const xMax = Math.max(1, ...xs);
  // The y axis starts at zero, so that a flat line looks flat and growth is not exaggerated.
  const yStep = tickStep(Math.max(1e-9, ...ys) * 1.1);
  const yMax = Math.ceil((Math.max(1e-9, ...ys) * 1.1) / yStep) * yStep;
  const x = (v: number) => LEFT + (v / xMax) * plotW;
  const y = (v: number) => top + TOP + plotH - (v / yMax) * plotH;
  const parts = [
    `<text x="${LEFT}" y="${top + 18}" font-size="13" font-weight="bold">${escapeXml(panel.title)} (${escapeXml(panel.unit)})</text>`,
    `<rect x="${LEFT}" y="${top + TOP}" width="${plotW}" height="${plotH}" fill="none" stroke="#999"/>`,
  ];
  for (let v = 0; v <= yMax + yStep / 2; v += yStep) {
    parts.push(
      `<line x1="${LEFT}" x2="${LEFT + plotW}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#eee"/>`,
      `<text x="${LEFT - 6}" y="${(y(v) + 4).toFixed(1)}" font-size="11" text-anchor="end">${Number(v.toPrecision(6))}</text>`,
    );
  }
  const xStep = tickStep(xMax);
  for (let v = 0; v <= xMax; v += xStep) {
    parts.push(
      `<text x="${x(v).toFixed(1)}" y="${top + TOP + plotH + 16}" font-size="11" text-anchor="middle">${Number(v.toPrecision(6))} s</text>`,
    );
  }
  const path = panel.points.map(
    ([px, py], i) => `${i === 0 ? 'M' : 'L'}${x(px).toFixed(1)},${y(py).toFixed(1)}`,
  );
  parts.push(`<path d="${path.join(' ')}" fill="none" stroke="#1f6fb2" stroke-width="1.8"/>`);
  return parts.join('\n');
}

/** Panels stacked one above the other, sharing the time axis: a standalone SVG document. */
export function stackedLineChart(title: string, panels: readonly Panel[]): string {
  const height = panels.length * PANEL_HEIGHT;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${WIDTH}" height="${height}" fill="white"/>`,
    ...panels.map(panelSvg),
    '</svg>',
    '',
  ].join('\n');
}
