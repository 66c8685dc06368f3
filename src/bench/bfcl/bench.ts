// npm run bench:bfcl's run: the chosen categories (a fixed sample of each, or all) on each model,
// masked and unmasked, and through llama.cpp's llama-server on the same GGUF when the caller starts
// one (server-mode.ts), scored by bfcl-eval's checker, as one BfclReport.
import { cpus } from "node:os";
import { loadModel } from "../../engine/model.js";
import { loadCategory, sampleItems } from "./data.js";
import { bfclInstall, type OracleProgram } from "./oracle.js";
import {
  BFCL_MODES,
  decodeCategory,
  IN_PROCESS_MODES,
  scoreAnswers,
  type BfclMode,
  type BfclToolChoice,
  type DecodedGroup,
  type InProcessMode,
} from "./run.js";
import { decodeCategoryOnServer } from "./server-mode.js";
import { summarizeGroup, type BfclModelEntry, type BfclReport, type LlamaServerRun } from "./summary.js";
import { CONTRADICTED_ITEMS, type BfclCategory, type BfclItem } from "./types.js";

export interface BfclBenchOptions {
  oracle: OracleProgram;
  /** As `npm run models -- --list` gives them. */
  models: ReadonlyArray<{ name: string; path: string; dialect: string | null }>;
  categories: readonly BfclCategory[];
  /** Items per category (a fixed, evenly spread sample); undefined: all. */
  sample?: number;
  maxTokens: number;
  /** Default "auto"; "required" applies outside irrelevance (run.ts choiceFor). */
  toolChoice?: BfclToolChoice;
  concurrency: number;
  threads: number;
  /** Default: unmasked and masked, and llama-server when `llamaServer` is given. */
  modes?: readonly BfclMode[];
  /**
   * Starts llama-server on a model's GGUF for the "llama-server" mode with the run's threads and
   * concurrency (the script does, with scripts/oracles/llama-server/process.mjs); stopped after the model.
   */
  llamaServer?: StartLlamaServer;
  /** What the report records of llama-server (its build, arguments, how requests were sent). */
  llamaServerRun?: LlamaServerRun;
  /** How long one llama-server request may take (default 30 min: a stalled server stops the run). */
  serverRequestTimeoutMs?: number;
  command: string;
  log?: (line: string) => void;
  /** Called with the report so far after each model × category × mode (the script writes it, so a stopped run keeps what it finished). */
  onGroup?: (report: BfclReport) => void;
}

/** Per-sequence context of every mode (loadModel's contextSize; llama-server's -c is this × slots). */
export const BFCL_CONTEXT = 4096;

export interface StartedLlamaServer {
  url: string;
  stop: () => Promise<void>;
}
export type StartLlamaServer = (
  model: { name: string; path: string },
  settings: { threads: number; concurrency: number; contextSize: number },
) => Promise<StartedLlamaServer>;

export async function runBfclBench(o: BfclBenchOptions): Promise<BfclReport> {
  const log = o.log ?? (() => {});
  const install = await bfclInstall(o.oracle);
  const items = new Map<BfclCategory, BfclItem[]>(
    o.categories.map((c) => [c, sampleItems(loadCategory(install.dataDir, c), o.sample)]),
  );
  const byId = new Map([...items.values()].flat().map((e) => [e.id, e]));
  const report: BfclReport = {
    bfclEval: install.version,
    generatedAt: new Date().toISOString(),
    command: o.command,
    machine: { cpus: cpus().length, threads: o.threads },
    settings: {
      maxTokens: o.maxTokens,
      sample: o.sample ?? null,
      concurrency: o.concurrency,
      toolChoice: o.toolChoice ?? "auto",
      temperature: 0,
      categories: [...o.categories],
      sampleIds: Object.fromEntries([...items].map(([c, es]) => [c, es.map((e) => e.id)])),
    },
    contradictedItems: CONTRADICTED_ITEMS.filter((id) => byId.has(id)),
    ...(o.llamaServerRun ? { llamaServer: o.llamaServerRun } : {}),
    models: [],
    rows: [],
    answers: [],
  };
  const modes = o.modes ?? (o.llamaServer ? BFCL_MODES : IN_PROCESS_MODES);
  const inProcess = modes.filter((m): m is InProcessMode => m !== "llama-server");
  const viaServer = modes.includes("llama-server");
  if (viaServer && !o.llamaServer) throw new Error("the llama-server mode needs options.llamaServer to start one");
  for (const m of o.models) {
    const entry: BfclModelEntry = { name: m.name, path: m.path, dialect: m.dialect };
    report.models.push(entry);
    const started = performance.now();
    const model = await loadModel({
      path: m.path,
      gpu: false,
      threads: o.threads,
      parallel: o.concurrency,
      contextSize: BFCL_CONTEXT,
    });
    let server: StartedLlamaServer | undefined;
    let released = false;
    const release = () => {
      if (!released) model.dispose();
      released = true;
    };
    try {
      entry.loadSeconds = Math.round((performance.now() - started) / 100) / 10;
      const dialect = m.dialect ?? model.dialect;
      if (!dialect) {
        entry.skipped = "no tool-call dialect: the manifest names none and its chat template shows none";
        log(`${m.name}: skipped (${entry.skipped})`);
        continue;
      }
      entry.dialect = dialect;
      if (viaServer) {
        if (inProcess.length === 0) release(); // llama-server alone: the loaded model only gave the dialect
        const t0 = performance.now();
        server = await o.llamaServer!(m, { threads: o.threads, concurrency: o.concurrency, contextSize: BFCL_CONTEXT });
        entry.llamaServerStartSeconds = Math.round((performance.now() - t0) / 100) / 10;
      }
      for (const [category, es] of items) {
        const progress = (a: { mode: string; id: string; completionTokens: number }, done: number, total: number) => {
          if (done % 10 === 0 || done === total)
            log(`${m.name} ${category}: ${done}/${total} (${a.mode} ${a.id}: ${a.completionTokens} tokens)`);
        };
        const groups: DecodedGroup[] = [];
        if (inProcess.length > 0)
          groups.push(
            ...(await decodeCategory(model, category, es, {
              dialect,
              toolChoice: o.toolChoice ?? "auto",
              maxTokens: o.maxTokens,
              modes: inProcess,
              concurrency: o.concurrency,
              onAnswer: progress,
            })),
          );
        if (server)
          groups.push(
            await decodeCategoryOnServer(server, category, es, {
              toolChoice: o.toolChoice ?? "auto",
              maxTokens: o.maxTokens,
              concurrency: o.concurrency,
              requestTimeoutMs: o.serverRequestTimeoutMs ?? 30 * 60_000,
              onAnswer: progress,
            }),
          );
        for (const g of groups) {
          const scored = await scoreAnswers(o.oracle, byId, g.answers);
          const row = summarizeGroup(m.name, dialect, g, scored);
          report.rows.push(row);
          report.answers.push(...scored.map((a) => ({ model: m.name, ...a })));
          o.onGroup?.(report);
          log(
            `${m.name} ${category} ${g.mode}: valid ${row.valid}/${row.items}, AST ${row.astCorrect}/${row.items}, ${row.tokensPerSecond} tok/s, ${row.wallSeconds} s`,
          );
        }
      }
    } finally {
      await server?.stop();
      release();
    }
  }
  return report;
}

/**
 * Scores a report's stored answers again (bfcl-eval's checker only, no decoding) and updates the
 * rows' AST counts: for a new checker version, or a report written before a field existed.
 */
export async function rescoreReport(oracle: OracleProgram, report: BfclReport): Promise<BfclReport> {
  const install = await bfclInstall(oracle);
  const byId = new Map(
    report.settings.categories.flatMap((c) => loadCategory(install.dataDir, c)).map((e) => [e.id, e]),
  );
  const unscored = report.answers.map(
    ({ astCorrect: _a, astError: _e, contentCalls: _c, astCorrectFromContent: _f, model: _m, ...rest }) => rest,
  );
  const scored = await scoreAnswers(oracle, byId, unscored);
  const answers = scored.map((a, i) => ({ model: report.answers[i]!.model, ...a }));
  const rows = report.rows.map((row) => {
    const mine = answers.filter((a) => a.model === row.model && a.category === row.category && a.mode === row.mode);
    return {
      ...row,
      astCorrect: mine.filter((a) => a.astCorrect).length,
      contentCallAnswers: mine.filter((a) => a.contentCalls.length > 0).length,
      astCorrectFromContent: mine.filter((a) => a.astCorrectFromContent).length,
    };
  });
  return { ...report, bfclEval: install.version, answers, rows };
}
