// Writes a bench report: bench.json, report.html (self-contained) and validity.png (the main chart).
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { validityChart } from "./report/charts.js";
import { reportHtml } from "./report/html.js";
import { barChartPng } from "./report/png-chart.js";
import type { BenchReport } from "./summarize.js";

export interface WrittenReport {
  dir: string;
  json: string;
  html: string;
  png: string;
  pngSize: { width: number; height: number };
}

export function writeReport(report: BenchReport, outDir: string): WrittenReport {
  const dir = resolve(outDir);
  mkdirSync(dir, { recursive: true });
  const json = join(dir, "bench.json"),
    html = join(dir, "report.html"),
    png = join(dir, "validity.png");
  writeFileSync(json, JSON.stringify(report, null, 2) + "\n");
  writeFileSync(html, reportHtml(report));
  const chart = barChartPng(validityChart(report));
  writeFileSync(png, chart.png);
  return { dir, json, html, png, pngSize: { width: chart.width, height: chart.height } };
}
