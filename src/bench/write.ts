// Writes a bench report: bench.json, report.html (self-contained) and validity.png (the main chart,
// when its optional renderer is installed: report/png-chart.ts).
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { validityChart } from "./report/charts.js";
import { reportHtml } from "./report/html.js";
import { barChartPng, type PngRenderer } from "./report/png-chart.js";
import type { BenchReport } from "./summarize.js";

export interface WrittenReport {
  dir: string;
  json: string;
  html: string;
  /** The chart's path and size; undefined when the renderer is not installed (`pngMissing` says what to install). */
  png: string | undefined;
  pngSize: { width: number; height: number } | undefined;
  pngMissing: string | undefined;
}

export function writeReport(report: BenchReport, outDir: string, renderer?: PngRenderer): WrittenReport {
  const dir = resolve(outDir);
  mkdirSync(dir, { recursive: true });
  const json = join(dir, "bench.json"),
    html = join(dir, "report.html"),
    png = join(dir, "validity.png");
  writeFileSync(json, JSON.stringify(report, null, 2) + "\n");
  writeFileSync(html, reportHtml(report));
  const chart = barChartPng(validityChart(report), renderer);
  if ("missing" in chart) return { dir, json, html, png: undefined, pngSize: undefined, pngMissing: chart.missing };
  writeFileSync(png, chart.png);
  return { dir, json, html, png, pngSize: { width: chart.width, height: chart.height }, pngMissing: undefined };
}
