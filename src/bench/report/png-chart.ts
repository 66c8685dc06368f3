// The main chart as a PNG: its SVG (svg.ts, the one drawing of the chart) rendered by resvg
// (@resvg/resvg-js, prebuilt per platform) with DejaVu Sans (dejavu-fonts-ttf), no system fonts,
// so the same report draws the same pixels on every machine.
import { createRequire } from "node:module";
import { Resvg } from "@resvg/resvg-js";
import type { BarChart } from "./charts.js";
import { barChartSvg } from "./svg.js";

/** Device pixels per SVG unit. */
export const PNG_SCALE = 2;

const require = createRequire(import.meta.url);
const FONTS = ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf"].map((f) => require.resolve(`dejavu-fonts-ttf/ttf/${f}`));

/** `svg` as PNG bytes at PNG_SCALE, on white. */
export function svgToPng(svg: string): { png: Buffer; width: number; height: number } {
  const r = new Resvg(svg, {
    fitTo: { mode: "zoom", value: PNG_SCALE },
    background: "#ffffff",
    font: {
      fontFiles: FONTS,
      loadSystemFonts: false,
      defaultFontFamily: "DejaVu Sans",
      sansSerifFamily: "DejaVu Sans",
    },
  }).render();
  return { png: r.asPng(), width: r.width, height: r.height };
}

export function barChartPng(c: BarChart): { png: Buffer; width: number; height: number } {
  return svgToPng(barChartSvg(c));
}
