// The main chart as a PNG, drawn with the bitmap font: readable in an image viewer, with no
// native dependencies and no fonts needed on the machine that writes it.
import { Canvas, hexColor } from "../png/canvas.js";
import { encodePng } from "../png/encode.js";
import type { BarChart } from "./charts.js";

export const PNG_WIDTH = 1000;
const INK = hexColor("#222222"), GREY = hexColor("#666666"), AXIS = hexColor("#999999");

/** Height for a chart of `bars` bars. */
export function pngHeight(bars: number): number {
  return 130 + bars * 56 + 50;
}

/** Cuts `text` to what fits in `px` pixels at `scale`. */
function fit(text: string, px: number, scale: number): string {
  const max = Math.floor((px / scale + 1) / 6);
  return text.length <= max ? text : `${text.slice(0, max - 1)}.`;
}

export function barChartPng(c: BarChart): { png: Buffer; width: number; height: number } {
  const width = PNG_WIDTH, height = pngHeight(c.bars.length);
  const cv = new Canvas(width, height);
  cv.text(24, 22, fit(c.title, width - 48, 3), 3, INK);
  cv.text(24, 62, fit(c.subtitle, width - 48, 2), 2, GREY);
  const labelW = Math.max(...c.bars.map((b) => Canvas.textWidth(b.label, 2))) + 40;
  const x0 = Math.min(420, labelW), valueW = Math.max(...c.bars.map((b) => Canvas.textWidth(b.display, 2))) + 24;
  const plot = width - x0 - valueW - 24, top = 110;
  cv.fillRect(x0 - 2, top - 6, 2, c.bars.length * 56 + 8, AXIS);
  c.bars.forEach((b, i) => {
    const y = top + i * 56;
    cv.text(x0 - 16 - Canvas.textWidth(b.label, 2), y + 14, b.label, 2, INK);
    const w = b.value === null ? 0 : Math.max(2, (b.value / c.max) * plot);
    cv.fillRect(x0, y, w, 42, hexColor(b.color));
    cv.text(x0 + w + 12, y + 14, b.display, 2, INK);
  });
  if (c.note) cv.text(24, height - 34, fit(c.note, width - 48, 2), 2, GREY);
  return { png: encodePng(width, height, cv.data), width, height };
}
