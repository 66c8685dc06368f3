// The report as one self-contained HTML file: summary table, inline SVG charts, XGrammar's
// reference numbers, every run. Well-formed XML too (XHTML syntax), so any parser can read it.
import type { BenchReport } from "../summarize.js";
import { VARIANTS } from "../variants.js";
import { maskChart, speedChart, validityChart } from "./charts.js";
import { barChartSvg, esc, finishReasonsSvg } from "./svg.js";

const num = (x: number | null | undefined, d = 2) => (x === null || x === undefined ? "—" : x.toFixed(d));
const td = (s: string | number) => `<td>${esc(String(s))}</td>`;

function summaryTable(r: BenchReport): string {
  const head = [
    "mode",
    "valid",
    "validity",
    "tool_calls / stop / length",
    "truncated",
    "truncations blocked",
    "tok/s overall",
    "tok/s median",
    "mask µs median",
    "mask µs p99",
    "in-decode mask µs median",
  ]
    .map((h) => `<th>${esc(h)}</th>`)
    .join("");
  const rows = VARIANTS.filter((v) => r.variants[v])
    .map((v) => {
      const s = r.variants[v]!;
      return (
        `<tr>${td(s.label)}${td(`${s.valid}/${s.runs}`)}${td(s.validityRate === null ? "—" : `${(s.validityRate * 100).toFixed(1)}%`)}` +
        `${td(`${s.finishReasons.tool_calls} / ${s.finishReasons.stop} / ${s.finishReasons.length}`)}${td(s.truncated)}${td(s.truncationsBlocked)}` +
        `${td(num(s.tokensPerSecond.overall, 1))}${td(num(s.tokensPerSecond.median, 1))}${td(num(s.maskMicrosPerToken?.median))}${td(num(s.maskMicrosPerToken?.p99))}` +
        `${td(num(s.maskMicrosInDecode?.median))}</tr>`
      );
    })
    .join("");
  return `<table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

function reasons(r: BenchReport): string {
  const items = VARIANTS.filter((v) => r.variants[v]).flatMap((v) => {
    const s = r.variants[v]!;
    return [
      ...Object.entries(s.invalidReasons).map(([why, n]) => `<li>${esc(s.label)}: ${n} × ${esc(why)}</li>`),
      ...s.errors.map((e) => `<li>${esc(s.label)}: not run: ${esc(e)}</li>`),
    ];
  });
  return items.length ? `<ul>${items.join("")}</ul>` : "<p>Every answer was valid.</p>";
}

function xgrammarSection(r: BenchReport): string {
  const x = r.xgrammar;
  const compile =
    Object.entries(x.compileMillis)
      .map(([c, ms]) => `${esc(c)} ${ms} ms`)
      .join(", ") || "—";
  return (
    `<p>${esc(x.version)} on ${esc(x.grammar)}.</p><ul>` +
    `<li>mask per token: median ${num(x.maskMicrosPerToken?.median)} µs, p99 ${num(x.maskMicrosPerToken?.p99)} µs (${x.maskMicrosPerToken?.samples ?? 0} masks)</li>` +
    `<li>TokenizerInfo: ${num(x.tokenizerInfoMillis, 1)} ms; compile: ${compile}</li>` +
    `<li>tokens XGrammar refused on our walks: ${x.refused}</li>` +
    x.errors.map((e) => `<li>${esc(e)}</li>`).join("") +
    "</ul>"
  );
}

function runsTable(r: BenchReport): string {
  const rows = r.runs
    .map(
      (x) =>
        `<tr>${td(x.case)}${td(x.seed)}${td(x.variant)}${td(x.finishReason ?? "—")}${td(x.verdict.valid ? "valid" : x.verdict.reason)}` +
        `${td(x.tokens)}${td(num(x.tokensPerSecond, 1))}<td><code>${esc(JSON.stringify(x.text))}</code></td></tr>`,
    )
    .join("");
  return `<table><thead><tr><th>case</th><th>seed</th><th>mode</th><th>finish</th><th>verdict</th><th>tokens</th><th>tok/s</th><th>output (start)</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function reportHtml(r: BenchReport): string {
  const defs = Object.entries(r.definitions)
    .map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`)
    .join("");
  return `<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" lang="en">
<head><meta charset="utf-8"/><title>toolmask bench — ${esc(r.date)}</title>
<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}table{border-collapse:collapse;font-size:13px;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 7px;text-align:left}th{background:#f3f3f3}code{font-size:12px;word-break:break-all}dt{font-weight:bold}svg{display:block;margin:1.5em 0}</style>
</head>
<body>
<h1>toolmask bench</h1>
<p>${esc(r.date)} · ${esc(r.model.path)} (${r.model.vocabSize} tokens, ${r.model.threads} thread(s), GPU: ${esc(String(r.model.gpu))}) · ${esc(r.machine.cpu)}, ${r.machine.cores} CPUs, load ${r.machine.loadavg.join(" ")} · Node ${esc(r.machine.node)} · ${r.durationSeconds} s${r.suite.biasApplied ? " · the suite's logit biases applied (random-weight test model)" : ""}</p>
<h2>Summary</h2>
${summaryTable(r)}
${barChartSvg(validityChart(r))}
${finishReasonsSvg(r)}
${barChartSvg(speedChart(r))}
${barChartSvg(maskChart(r))}
<h2>Why answers were not valid</h2>
${reasons(r)}
<h2>Cold start</h2>
<p>Before each case's timed runs one untimed masked run compiles the grammar and fills the mask cache. Its in-decode mask time per token: ${
    Object.entries(r.coldMaskMicrosInDecode)
      .map(([c, us]) => `${esc(c)} ${num(us, 1)} µs`)
      .join(", ") || "—"
  }.</p>
<h2>XGrammar (reference)</h2>
${xgrammarSection(r)}
<h2>Definitions</h2>
<dl>${defs}</dl>
<h2>Every run</h2>
${runsTable(r)}
</body>
</html>
`;
}
