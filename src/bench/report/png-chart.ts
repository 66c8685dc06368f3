// The main chart as a PNG: its SVG (svg.ts, the one drawing of the chart) rendered by resvg
// (@resvg/resvg-js, prebuilt per platform) with DejaVu Sans (dejavu-fonts-ttf), no system fonts,
// so the same report draws the same pixels on every machine. Both are optional peer dependencies
// (a plain `npm install toolmask` installs no renderer and no fonts): loaded on first use, and
// without them there is no PNG and a line saying what to install.
import { createRequire } from "node:module";
import type { BarChart } from "./charts.js";
import { barChartSvg } from "./svg.js";

/** Device pixels per SVG unit. */
export const PNG_SCALE = 2;

/** What to run for the PNG chart when the renderer is not installed. */
export const PNG_RENDERER_INSTALL = "npm install @resvg/resvg-js@2.6.2 dejavu-fonts-ttf@2.37.3";

type ResvgClass = typeof import("@resvg/resvg-js").Resvg;
export type PngRenderer = { Resvg: ResvgClass; fonts: string[] } | { missing: string };

let loaded: PngRenderer | undefined;

/** The renderer and its fonts, or why they cannot be had (`load` stands for Node's require). */
export function loadPngRenderer(load: NodeJS.Require = createRequire(import.meta.url)): PngRenderer {
  try {
    const { Resvg } = load("@resvg/resvg-js") as typeof import("@resvg/resvg-js");
    const fonts = ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf"].map((f) => load.resolve(`dejavu-fonts-ttf/ttf/${f}`));
    return { Resvg, fonts };
  } catch (err) {
    if ((err as { code?: string }).code !== "MODULE_NOT_FOUND") throw err;
    return {
      missing: `the PNG chart needs the optional packages @resvg/resvg-js and dejavu-fonts-ttf (${(err as Error).message.split("\n")[0]}): ${PNG_RENDERER_INSTALL}`,
    };
  }
}

/** `svg` as PNG bytes at PNG_SCALE, on white; undefined with the reason when the renderer is not installed. */
export function svgToPng(
  svg: string,
  renderer: PngRenderer = (loaded ??=
    loadPngRenderer()),
): { png: Buffer; width: number; height: number } | { missing: string } {
  if ("missing" in renderer) return renderer;
  const r = new renderer.Resvg(svg, {
    fitTo: { mode: "zoom", value: PNG_SCALE },
    background: "#ffffff",
    font: {
      fontFiles: renderer.fonts,
      loadSystemFonts: false,
      defaultFontFamily: "DejaVu Sans",
      sansSerifFamily: "DejaVu Sans",
    },
  }).render();
  return { png: r.asPng(), width: r.width, height: r.height };
}

export function barChartPng(c: BarChart, renderer?: PngRenderer) {
  return svgToPng(barChartSvg(c), renderer);
}
