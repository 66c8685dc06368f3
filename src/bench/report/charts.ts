// The report's charts as plain data, drawn twice: as SVG in the HTML and as the PNG.
import type { BenchReport } from "../summarize.js";
import { VARIANTS } from "../variants.js";

export interface Bar {
  label: string;
  value: number | null;
  display: string;
  color: string;
}
export interface BarChart {
  title: string;
  subtitle: string;
  max: number;
  bars: Bar[];
  note?: string;
}

export const COLORS: Record<string, string> = {
  unmasked: "#c0392b",
  "masked-cpu": "#1e8449",
  "masked-backend": "#2874a6",
  "node-llama-cpp-gbnf": "#b9770e",
  xgrammar: "#6c3483",
};

const fmt = (x: number, digits = 1) => x.toFixed(digits);

function subtitleOf(r: BenchReport): string {
  const runs = Object.values(r.variants).reduce((n, v) => Math.max(n, v?.runs ?? 0), 0);
  const name = r.model.path.split(/[\\/]/).pop() ?? r.model.path;
  return `${name} · suite ${r.suite.name}: ${r.suite.cases.length} cases × ${r.suite.seeds} seeds = ${runs} answers per mode`;
}

/** The main chart: how many answers a client could act on, per decoding mode. */
export function validityChart(r: BenchReport): BarChart {
  return {
    title: "Valid tool-call answers by decoding mode",
    subtitle: subtitleOf(r),
    max: 100,
    bars: VARIANTS.filter((v) => r.variants[v]).map((v) => {
      const s = r.variants[v]!;
      const pct = s.validityRate === null ? null : s.validityRate * 100;
      return {
        label: s.label,
        value: pct,
        display: pct === null ? "not run" : `${fmt(pct, 0)}% (${s.valid}/${s.runs})`,
        color: COLORS[v]!,
      };
    }),
    note: "valid: calls complete, declared, with required arguments; a call where required",
  };
}

export function speedChart(r: BenchReport): BarChart {
  const bars = VARIANTS.filter((v) => r.variants[v]).map((v) => {
    const s = r.variants[v]!;
    const m = s.tokensPerSecond.overall;
    return { label: s.label, value: m, display: m === null ? "—" : `${fmt(m)} tok/s`, color: COLORS[v]! };
  });
  return {
    title: "Decoding speed (tokens per second, all runs)",
    subtitle: subtitleOf(r),
    max: Math.max(1, ...bars.map((b) => b.value ?? 0)),
    bars,
  };
}

export function maskChart(r: BenchReport): BarChart {
  const bars: Bar[] = [];
  const add = (label: string, q: { median: number | null; p99: number | null } | null | undefined, color: string) => {
    if (!q || q.median === null) return;
    bars.push({ label: `${label} median`, value: q.median, display: `${fmt(q.median, 2)} µs`, color });
    if (q.p99 !== null) bars.push({ label: `${label} p99`, value: q.p99, display: `${fmt(q.p99, 2)} µs`, color });
  };
  add(
    "toolmask mask",
    r.variants["masked-cpu"]?.maskMicrosPerToken ?? r.variants["masked-backend"]?.maskMicrosPerToken,
    COLORS["masked-cpu"]!,
  );
  add("XGrammar mask", r.xgrammar.maskMicrosPerToken, COLORS.xgrammar!);
  add("in decode, CPU path", r.variants["masked-cpu"]?.maskMicrosInDecode, COLORS["masked-cpu"]!);
  add("in decode, backend path", r.variants["masked-backend"]?.maskMicrosInDecode, COLORS["masked-backend"]!);
  return {
    title: "Mask time per token (µs)",
    subtitle: "computing the mask, same grammar and tokens; and what applying it costs inside decoding",
    max: Math.max(1, ...bars.map((b) => b.value ?? 0)),
    bars,
  };
}
