// Charts as inline SVG (no scripts, no external fonts: the report is one self-contained file).
import type { BenchReport } from "../summarize.js";
import { VARIANTS } from "../variants.js";
import type { BarChart } from "./charts.js";

export const esc = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

const W = 760,
  LABEL = 230,
  ROW = 30,
  TOP = 54;

export function barChartSvg(c: BarChart): string {
  const h = TOP + c.bars.length * ROW + (c.note ? 34 : 14);
  const plot = W - LABEL - 150;
  const rows = c.bars
    .map((b, i) => {
      const y = TOP + i * ROW;
      const w = b.value === null ? 0 : Math.max(1, (b.value / c.max) * plot);
      return (
        `<text x="${LABEL - 8}" y="${y + 19}" text-anchor="end">${esc(b.label)}</text>` +
        `<rect x="${LABEL}" y="${y + 4}" width="${w.toFixed(1)}" height="${ROW - 8}" fill="${b.color}"/>` +
        `<text x="${(LABEL + w + 6).toFixed(1)}" y="${y + 19}">${esc(b.display)}</text>`
      );
    })
    .join("");
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}" role="img" aria-label="${esc(c.title)}" font-family="sans-serif" font-size="13">` +
    `<text x="10" y="22" font-size="17" font-weight="bold">${esc(c.title)}</text>` +
    `<text x="10" y="42" fill="#555">${esc(c.subtitle)}</text>` +
    `<line x1="${LABEL}" y1="${TOP}" x2="${LABEL}" y2="${TOP + c.bars.length * ROW}" stroke="#333"/>` +
    rows +
    (c.note ? `<text x="10" y="${h - 10}" fill="#555" font-size="12">${esc(c.note)}</text>` : "") +
    "</svg>"
  );
}

const FINISH: Array<["stop" | "tool_calls" | "length", string]> = [
  ["tool_calls", "#1e8449"],
  ["stop", "#7f8c8d"],
  ["length", "#c0392b"],
];

/** Finish reasons per variant, stacked to 100%. */
export function finishReasonsSvg(r: BenchReport): string {
  const vs = VARIANTS.filter((v) => r.variants[v] && r.variants[v]!.runs > 0);
  const h = TOP + vs.length * ROW + 40,
    plot = W - LABEL - 40;
  const rows = vs
    .map((v, i) => {
      const s = r.variants[v]!,
        y = TOP + i * ROW;
      let x = LABEL;
      const parts = FINISH.map(([k, color]) => {
        const n = s.finishReasons[k],
          w = (n / s.runs) * plot;
        const part =
          n === 0
            ? ""
            : `<rect x="${x.toFixed(1)}" y="${y + 4}" width="${w.toFixed(1)}" height="${ROW - 8}" fill="${color}"><title>${k}: ${n}</title></rect>` +
              (w > 28 ? `<text x="${(x + 4).toFixed(1)}" y="${y + 19}" fill="#fff">${n}</text>` : "");
        x += w;
        return part;
      }).join("");
      return `<text x="${LABEL - 8}" y="${y + 19}" text-anchor="end">${esc(s.label)}</text>${parts}`;
    })
    .join("");
  const legend = FINISH.map(
    ([k, color], i) =>
      `<rect x="${LABEL + i * 130}" y="${h - 26}" width="12" height="12" fill="${color}"/><text x="${LABEL + i * 130 + 18}" y="${h - 15}">${k}</text>`,
  ).join("");
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}" role="img" aria-label="finish reasons" font-family="sans-serif" font-size="13">` +
    `<text x="10" y="22" font-size="17" font-weight="bold">Finish reasons</text><text x="10" y="42" fill="#555">share of answers per mode</text>${rows}${legend}</svg>`
  );
}
