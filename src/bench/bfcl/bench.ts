// npm run bench:bfcl's run: the chosen categories (a fixed sample of each, or all) on each model,
// masked and unmasked, scored by bfcl-eval's checker, as one BfclReport.
import { cpus } from "node:os";
import { loadModel } from "../../engine/model.js";
import { loadCategory, sampleItems } from "./data.js";
import { bfclInstall, type OracleProgram } from "./oracle.js";
import { BFCL_MODES, decodeCategory, scoreAnswers, type BfclMode, type BfclToolChoice } from "./run.js";
import { summarizeGroup, type BfclModelEntry, type BfclReport } from "./summary.js";
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
  modes?: readonly BfclMode[];
  command: string;
  log?: (line: string) => void;
  /** Called with the report so far after each model × category × mode (the script writes it, so a stopped run keeps what it finished). */
  onGroup?: (report: BfclReport) => void;
}

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
    models: [],
    rows: [],
    answers: [],
  };
  for (const m of o.models) {
    const entry: BfclModelEntry = { name: m.name, path: m.path, dialect: m.dialect };
    report.models.push(entry);
    const started = performance.now();
    const model = await loadModel({
      path: m.path,
      gpu: false,
      threads: o.threads,
      parallel: o.concurrency,
      contextSize: 4096,
    });
    try {
      entry.loadSeconds = Math.round((performance.now() - started) / 100) / 10;
      const dialect = m.dialect ?? model.dialect;
      if (!dialect) {
        entry.skipped = "no tool-call dialect: the manifest names none and its chat template shows none";
        log(`${m.name}: skipped (${entry.skipped})`);
        continue;
      }
      entry.dialect = dialect;
      for (const [category, es] of items) {
        const groups = await decodeCategory(model, category, es, {
          dialect,
          toolChoice: o.toolChoice ?? "auto",
          maxTokens: o.maxTokens,
          modes: o.modes ?? BFCL_MODES,
          concurrency: o.concurrency,
          onAnswer: (a, done, total) => {
            if (done % 10 === 0 || done === total)
              log(`${m.name} ${category}: ${done}/${total} (${a.mode} ${a.id}: ${a.completionTokens} tokens)`);
          },
        });
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
      model.dispose();
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
