/**
 * A small SVG writer for the benchmark chart: grouped horizontal bars, one group per case, one bar
 * per server, each labelled with its value and its ratio to a reference bar. No chart library.
 */

export interface Bar {
  readonly label: string;
  readonly value: number;
  /** Drawn after the value, e.g. the ratio to the reference server. */
  readonly note?: string;
}

export interface Group {
  readonly label: string;
  readonly bars: readonly Bar[];
}

export interface ChartOptions {
  readonly title: string;
  readonly unit: string;
  /** One colour per bar label; a label without one is grey. */
  readonly colours: Readonly<Record<string, string>>;
}

const escapeXml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

const BAR = 14;
const GAP = 3;
const GROUP_GAP = 18;
const LEFT = 90;
const PLOT = 520;
const WIDTH = LEFT + PLOT + 170;

/** The chart as an SVG document. Each group's bars are scaled to the largest value of all groups. */
export function barChart(groups: readonly Group[], options: ChartOptions): string {
  const max = Math.max(1, ...groups.flatMap((g) => g.bars.map((b) => b.value)));
  const parts: string[] = [];
  let y = 40;
  for (const group of groups) {
    parts.push(`<text x="8" y="${y + 10}" class="group">${escapeXml(group.label)}</text>`);
    y += 16;
    for (const bar of group.bars) {
      const width = Math.max(1, Math.round((bar.value / max) * PLOT));
      const colour = options.colours[bar.label] ?? '#999';
      parts.push(
        `<text x="${LEFT - 6}" y="${y + BAR - 3}" class="server">${escapeXml(bar.label)}</text>`,
        `<rect x="${LEFT}" y="${y}" width="${width}" height="${BAR}" fill="${colour}"/>`,
        `<text x="${LEFT + width + 4}" y="${y + BAR - 3}" class="value">${escapeXml(
          `${Math.round(bar.value).toLocaleString('en-US')} ${options.unit}${bar.note ? `  ${bar.note}` : ''}`,
        )}</text>`,
      );
      y += BAR + GAP;
    }
    y += GROUP_GAP;
  }
  const height = y + 10;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="11">`,
    `<title>${escapeXml(options.title)}</title>`,
    '<style>.group{font-weight:bold;font-size:12px}.server{text-anchor:end}.title{font-size:14px;font-weight:bold}</style>',
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="8" y="20" class="title">${escapeXml(options.title)}</text>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}
