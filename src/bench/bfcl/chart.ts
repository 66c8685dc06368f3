// The BFCL chart as SVG: per model, one group of bars per category, AST accuracy unmasked, masked
// and llama-server side by side (valid-format share as a thin bar under each; a dashed outline:
// AST-correct had the {name, arguments} JSON in an answer's text been read as its calls). A mode
// the report has no row for leaves its bar out.
import { esc } from "../report/svg.js";
import { BFCL_MODES, type BfclMode } from "./run.js";
import type { BfclReport, BfclRow } from "./summary.js";

const COLOR: Record<BfclMode, string> = { unmasked: "#c0392b", masked: "#1e8449", "llama-server": "#2471a3" };
const W = 1040,
  LEFT = 200,
  BAR = 14,
  GAP = 4;

export function bfclChartSvg(r: BfclReport): string {
  const models = [...new Set(r.rows.map((x) => x.model))];
  const modes = BFCL_MODES.filter((m) => r.rows.some((x) => x.mode === m));
  const GROUP = modes.length * (BAR + GAP) + 16;
  const plot = W - LEFT - 300; // room right of a full bar for its label
  let y = 70;
  const parts: string[] = [];
  for (const model of models) {
    const rows = r.rows.filter((x) => x.model === model);
    parts.push(`<text x="10" y="${y + 4}" font-weight="bold">${esc(model)} (${esc(rows[0]!.dialect)})</text>`);
    y += 14;
    for (const category of [...new Set(rows.map((x) => x.category))]) {
      parts.push(`<text x="${LEFT - 8}" y="${y + GROUP / 2}" text-anchor="end">${esc(category)}</text>`);
      modes.forEach((mode, i) => {
        const row = rows.find((x) => x.category === category && x.mode === mode);
        if (!row) return;
        const by = y + i * (BAR + GAP);
        const ast = row.items ? row.astCorrect / row.items : 0,
          valid = row.items ? row.valid / row.items : 0;
        parts.push(
          `<rect x="${LEFT}" y="${by}" width="${(ast * plot).toFixed(1)}" height="${BAR - 4}" fill="${COLOR[mode]}"><title>${mode}: AST-correct ${row.astCorrect}/${row.items}</title></rect>`,
        );
        const fromText = row.items ? (row.astCorrectFromContent ?? 0) / row.items : 0;
        if (fromText > ast)
          parts.push(
            `<rect x="${LEFT}" y="${by}" width="${(fromText * plot).toFixed(1)}" height="${BAR - 4}" fill="none" stroke="${COLOR[mode]}" stroke-dasharray="3 2"><title>${mode}: AST-correct had the JSON in the text counted ${row.astCorrectFromContent}/${row.items}</title></rect>`,
          );
        parts.push(
          `<rect x="${LEFT}" y="${by + BAR - 3}" width="${(valid * plot).toFixed(1)}" height="3" fill="${COLOR[mode]}" opacity="0.45"><title>${mode}: valid ${row.valid}/${row.items}</title></rect>`,
        );
        parts.push(
          `<text x="${(LEFT + Math.max(ast, fromText) * plot + 6).toFixed(1)}" y="${by + BAR - 4}" font-size="11">${label(row)}</text>`,
        );
      });
      y += GROUP;
    }
    y += 10;
  }
  const legend = modes
    .map(
      (m, i) =>
        `<rect x="${LEFT + i * 120}" y="${y + 4}" width="12" height="12" fill="${COLOR[m]}"/><text x="${LEFT + i * 120 + 18}" y="${y + 15}">${m}</text>`,
    )
    .join("");
  const h = y + 44;
  const sample = r.settings.sample === null ? "every item" : `${r.settings.sample} items per category`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}" role="img" aria-label="BFCL AST accuracy" font-family="sans-serif" font-size="12">` +
    `<rect width="${W}" height="${h}" fill="#fff"/>` +
    `<text x="10" y="24" font-size="16" font-weight="bold">BFCL (bfcl-eval ${esc(r.bfclEval)}): AST-correct answers, ${esc(modes.join(", "))}</text>` +
    `<text x="10" y="44" fill="#555">${esc(sample)}, greedy, tool_choice ${r.settings.toolChoice === "required" ? "required (irrelevance: auto)" : "auto"}, ${r.settings.maxTokens} tokens at most; thin bar: valid share; dashed: AST-correct with JSON text read as calls</text>` +
    parts.join("") +
    legend +
    `<text x="10" y="${h - 10}" fill="#555" font-size="11">npm run bench:bfcl: the command and every answer are in the JSON file of the same name beside this chart</text></svg>`
  );
}

function label(row: BfclRow): string {
  const p = (k: number) => `${((100 * k) / Math.max(row.items, 1)).toFixed(0)}%`;
  const text = (row.astCorrectFromContent ?? 0) > row.astCorrect ? `, ${row.astCorrectFromContent} with JSON text` : "";
  return `${p(row.astCorrect)} AST (${row.astCorrect}/${row.items})${text}, valid ${p(row.valid)}`;
}
