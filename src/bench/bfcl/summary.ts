// bench/results/bfcl.json: per model × category × mode (unmasked, masked, llama-server), how many
// answers were well-formed and how many bfcl-eval's checker scored right, and how fast they were decoded.
import { BFCL_MODES, type BfclAnswer, type BfclMode, type DecodedGroup } from "./run.js";
import type { BfclCategory } from "./types.js";

export interface BfclRow {
  model: string;
  dialect: string;
  category: BfclCategory;
  mode: BfclMode;
  items: number;
  /** Format-valid answers (toolmask's verdict). */
  valid: number;
  /** Answers bfcl-eval's AST checker scored right. */
  astCorrect: number;
  /** Completion tokens over the group's wall time (prompt processing included; `concurrency` generations in flight). */
  tokensPerSecond: number;
  /** Completion tokens over each answer's own decode time, averaged over answers. */
  decodeTokensPerSecond: number;
  meanCompletionTokens: number;
  finishReasons: Record<"stop" | "tool_calls" | "length", number>;
  /** Answers with at least one call. */
  withCalls: number;
  /** Answers with no call in the dialect's format but a {"name", "arguments"} JSON object in their text. */
  contentCallAnswers: number;
  /** AST-correct had those JSON objects been read as the calls (not BFCL's score; see BfclAnswer). */
  astCorrectFromContent: number;
  wallSeconds: number;
  /** Unmasked answers valid with calls, replayed through the mask (run.ts `replay`), and those it refused. */
  replayed: number;
  refused: number;
  /** llama-server mode: answers that were an HTTP error instead of a completion. */
  serverErrors?: number;
}

export interface BfclModelEntry {
  name: string;
  path: string;
  dialect: string | null;
  skipped?: string;
  loadSeconds?: number;
  /** Seconds llama-server took to start on the model and answer /health (llama-server mode). */
  llamaServerStartSeconds?: number;
}

/** The llama-server the "llama-server" mode ran: which build, started how, asked how. */
export interface LlamaServerRun {
  /** `llama-server --version` as it printed it (the version and commit its prebuilt libllama-common reports). */
  version: string;
  /** The llama.cpp release node-llama-cpp bundles (its source and prebuilt libraries). */
  release: string | null;
  /** The llama.cpp source commit the server's own code was compiled from (the build's stamp). */
  sourceCommit: string | null;
  /** How scripts/oracles/llama-server/build.mjs built it. */
  strategy: string | null;
  /** Its arguments after -m MODEL --host --port. */
  args: string[];
  /** What every request carried besides the item's messages, tools and tool_choice. */
  request: Record<string, unknown>;
  /** How its prompt path and threads compare with the in-process modes'. */
  note: string;
}

export interface BfclReport {
  bfclEval: string;
  generatedAt: string;
  command: string;
  machine: { cpus: number; threads: number };
  settings: {
    maxTokens: number;
    sample: number | null;
    concurrency: number;
    toolChoice: "auto" | "required";
    temperature: 0;
    categories: BfclCategory[];
    sampleIds: Record<string, string[]>;
  };
  /** Items whose ground truth no schema-valid answer can meet (test/no-model/bfcl-convert.test.ts lists why). */
  contradictedItems: string[];
  /** Present when the run had the llama-server mode. */
  llamaServer?: LlamaServerRun;
  models: BfclModelEntry[];
  rows: BfclRow[];
  answers: Array<BfclAnswer & { model: string }>;
}

export function summarizeGroup(
  model: string,
  dialect: string,
  g: DecodedGroup,
  scored: readonly BfclAnswer[],
): BfclRow {
  const n = scored.length;
  const tokens = scored.reduce((s, a) => s + a.completionTokens, 0);
  const finishReasons = { stop: 0, tool_calls: 0, length: 0 };
  for (const a of scored) finishReasons[a.finishReason]++;
  const perAnswer = scored.filter((a) => a.decodeMillis > 0).map((a) => a.completionTokens / (a.decodeMillis / 1000));
  const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
  return {
    model,
    dialect,
    category: g.category,
    mode: g.mode,
    items: n,
    valid: scored.filter((a) => a.valid).length,
    astCorrect: scored.filter((a) => a.astCorrect).length,
    tokensPerSecond: round(tokens / Math.max(g.wallMillis / 1000, 1e-9)),
    decodeTokensPerSecond: round(perAnswer.length ? perAnswer.reduce((s, x) => s + x, 0) / perAnswer.length : 0),
    meanCompletionTokens: round(n ? tokens / n : 0),
    finishReasons,
    withCalls: scored.filter((a) => a.calls.length > 0).length,
    contentCallAnswers: scored.filter((a) => a.contentCalls.length > 0).length,
    astCorrectFromContent: scored.filter((a) => a.astCorrectFromContent).length,
    wallSeconds: round(g.wallMillis / 1000),
    replayed: scored.filter((a) => a.replay).length,
    refused: scored.filter((a) => a.replay && a.replay.refused !== null).length,
    ...(g.mode === "llama-server" ? { serverErrors: scored.filter((a) => a.serverError !== undefined).length } : {}),
  };
}

const pct = (k: number, n: number) => (n === 0 ? "—" : `${((100 * k) / n).toFixed(0)}%`);

/** The README's table: one line per model × category, the three modes side by side ("—": a mode not run). */
export function markdownTable(r: BfclReport): string {
  const modes = BFCL_MODES;
  const head =
    `| model (dialect) | category | items | ${modes.map((m) => `valid ${m}`).join(" | ")} | ${modes.map((m) => `AST-correct ${m}`).join(" | ")} | AST-correct had JSON in the text counted (${modes.join(" / ")}) | ${modes.map((m) => `tok/s ${m}`).join(" | ")} |\n` +
    `|${"---|".repeat(4 + 3 * modes.length)}`;
  const lines: string[] = [];
  const keys = [...new Set(r.rows.map((x) => `${x.model}\u0000${x.category}`))];
  for (const key of keys) {
    const [model, category] = key.split("\u0000") as [string, BfclCategory];
    const rows = modes.map((mode) =>
      r.rows.find((x) => x.model === model && x.category === category && x.mode === mode),
    );
    const any = rows.find((x) => x)!;
    const cell = (x: BfclRow | undefined, k: "valid" | "astCorrect") =>
      x ? `${x[k]}/${x.items} (${pct(x[k], x.items)})` : "—";
    const some = (f: (x: BfclRow) => string | number) => rows.map((x) => (x ? String(f(x)) : "—"));
    lines.push(
      `| ${model} (${any.dialect}) | ${category} | ${any.items} | ${rows.map((x) => cell(x, "valid")).join(" | ")} | ${rows.map((x) => cell(x, "astCorrect")).join(" | ")} | ${some((x) => x.astCorrectFromContent).join(" / ")} | ${some((x) => x.tokensPerSecond).join(" | ")} |`,
    );
  }
  const skipped = r.models
    .filter((m) => m.skipped)
    .map((m) => `\n\n${m.name}: not run (${m.skipped}).`)
    .join("");
  return `${head}\n${lines.join("\n")}${skipped}`;
}

/** One line: the unmasked answers with calls replayed through the mask, and how many it refused. */
export function overconstraintLine(r: BfclReport): string {
  const rows = r.rows.filter((x) => x.mode === "unmasked" && x.replayed !== undefined);
  const replayed = rows.reduce((s, x) => s + x.replayed, 0),
    refused = rows.reduce((s, x) => s + x.refused, 0);
  return `over-constraint: ${replayed} unmasked answers valid with calls replayed through the mask, ${refused} refused`;
}
