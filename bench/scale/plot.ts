// An SVG of delay distributions: one cumulative curve per series, delays on a log scale.
import { writeFileSync } from 'node:fs';

export interface Series {
  name: string;
  delaysMs: readonly number[];
  color: string;
}

const WIDTH = 760;
const HEIGHT = 420;
const MARGIN = { left: 60, right: 20, top: 30, bottom: 50 };
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** Writes the cumulative distributions of `series` to `file`, x from 10 ms to the largest delay. */
export function writeDelayPlot(file: string, title: string, series: readonly Series[]): void {
  const all = series.flatMap((s) => s.delaysMs).filter((d) => d > 0);
  const lo = 1;
  const hi = Math.ceil(Math.log10(Math.max(10_000, ...all)));
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (ms: number) => MARGIN.left + ((Math.log10(Math.max(10, ms)) - lo) / (hi - lo)) * plotW;
  const y = (fraction: number) => MARGIN.top + (1 - fraction) * plotH;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="18" text-anchor="middle" font-size="14">${escape(title)}</text>`,
  ];
  for (let power = lo; power <= hi; power += 1) {
    const px = x(10 ** power);
    const label = power < 3 ? `${10 ** power} ms` : `${10 ** (power - 3)} s`;
    parts.push(`<line x1="${px}" y1="${MARGIN.top}" x2="${px}" y2="${MARGIN.top + plotH}" stroke="#ddd"/>`);
    parts.push(`<text x="${px}" y="${MARGIN.top + plotH + 16}" text-anchor="middle">${label}</text>`);
  }
  for (const fraction of [0, 0.25, 0.5, 0.75, 0.99, 1]) {
    const py = y(fraction);
    parts.push(`<line x1="${MARGIN.left}" y1="${py}" x2="${MARGIN.left + plotW}" y2="${py}" stroke="#eee"/>`);
    parts.push(`<text x="${MARGIN.left - 6}" y="${py + 4}" text-anchor="end">${fraction * 100}%</text>`);
  }
  parts.push(
    `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 8}" text-anchor="middle">user finished → outcome known (log scale)</text>`,
  );
  series.forEach((s, index) => {
    const sorted = [...s.delaysMs].sort((a, b) => a - b);
    const points = sorted.map((d, i) => `${x(d).toFixed(1)},${y((i + 1) / sorted.length).toFixed(1)}`);
    parts.push(`<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${points.join(' ')}"/>`);
    const ly = MARGIN.top + 14 + index * 16;
    parts.push(
      `<line x1="${MARGIN.left + 10}" y1="${ly - 4}" x2="${MARGIN.left + 30}" y2="${ly - 4}" stroke="${s.color}" stroke-width="2"/>`,
    );
    parts.push(`<text x="${MARGIN.left + 36}" y="${ly}">${escape(`${s.name} (n=${sorted.length})`)}</text>`);
  });
  parts.push('</svg>');
  writeFileSync(file, `${parts.join('\n')}\n`);
}
