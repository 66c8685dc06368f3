// npm run bench:bfcl's run: the chosen categories (a fixed sample of each, or all) on each model,
// masked and unmasked, scored by bfcl-eval's checker, as one BfclReport.
import { cpus } from "node:os";
import { loadModel } from "../../engine/model.js";
import { loadCategory, sampleItems } from "./data.js";
import { bfclInstall, type OracleProgram } from "./oracle.js";
import { BFCL_MODES, decodeCategory, scoreAnswers, type BfclMode } from "./run.js";
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
  concurrency: number;
  threads: number;
  modes?: readonly BfclMode[];
  command: string;
  log?: (line: string) => void;
}

export async function runBfclBench(o: BfclBenchOptions): Promise<BfclReport> {
  const log = o.log ?? (() => {});
  const install = await bfclInstall(o.oracle);
  const items = new Map<BfclCategory, BfclItem[]>(o.categories.map((c) => [c, sampleItems(loadCategory(install.dataDir, c), o.sample)]));
  const byId = new Map([...items.values()].flat().map((e) => [e.id, e]));
  const report: BfclReport = {
    bfclEval: install.version, generatedAt: new Date().toISOString(), command: o.command,
    machine: { cpus: cpus().length, threads: o.threads },
    settings: { maxTokens: o.maxTokens, sample: o.sample ?? null, concurrency: o.concurrency, toolChoice: "auto", temperature: 0, categories: [...o.categories],
      sampleIds: Object.fromEntries([...items].map(([c, es]) => [c, es.map((e) => e.id)])) },
    contradictedItems: CONTRADICTED_ITEMS.filter((id) => byId.has(id)),
    models: [], rows: [], answers: [],
  };
  for (const m of o.models) {
    const entry: BfclModelEntry = { name: m.name, path: m.path, dialect: m.dialect };
    report.models.push(entry);
    const started = performance.now();
    const model = await loadModel({ path: m.path, gpu: false, threads: o.threads, parallel: o.concurrency, contextSize: 4096 });
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
          dialect, maxTokens: o.maxTokens, modes: o.modes ?? BFCL_MODES, concurrency: o.concurrency,
          onAnswer: (a, done, total) => { if (done % 10 === 0 || done === total) log(`${m.name} ${category}: ${done}/${total} (${a.mode} ${a.id}: ${a.completionTokens} tokens)`); },
        });
        for (const g of groups) {
          const scored = await scoreAnswers(o.oracle, byId, g.answers);
          const row = summarizeGroup(m.name, dialect, g, scored);
          report.rows.push(row);
          report.answers.push(...scored.map((a) => ({ model: m.name, ...a })));
          log(`${m.name} ${category} ${g.mode}: valid ${row.valid}/${row.items}, AST ${row.astCorrect}/${row.items}, ${row.tokensPerSecond} tok/s, ${row.wallSeconds} s`);
        }
      }
    } finally {
      model.dispose();
    }
  }
  return report;
}
