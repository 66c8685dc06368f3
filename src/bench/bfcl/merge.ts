// One BFCL report from several runs of the same settings that each decoded a part: other models,
// other categories (`npm run bench:bfcl -- --merge A.json,B.json`). A long run (the 1.5B model on
// 2 cores takes hours) can then be made a category at a time and put together. Runs whose answers
// are not comparable (another checker, token limit, sample, tool choice, llama-server build or
// machine) are refused, and so is a group (model × category × mode) decoded twice.
import type { BfclReport } from "./summary.js";
import { BFCL_CATEGORIES } from "./types.js";

export class BfclMergeError extends Error {
  override name = "BfclMergeError";
}

/** What must be equal in every merged run, as a value to compare. */
function comparable(r: BfclReport): Record<string, unknown> {
  const { sampleIds: _ids, categories: _categories, ...settings } = r.settings;
  return {
    bfclEval: r.bfclEval,
    settings,
    machine: r.machine,
    llamaServer: r.llamaServer && { sourceCommit: r.llamaServer.sourceCommit, args: r.llamaServer.args },
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export interface MergedBfclReport extends BfclReport {
  /** The runs put together: each one's command and when it was written. */
  mergedFrom: Array<{ command: string; generatedAt: string }>;
}

export function mergeBfclReports(reports: BfclReport[]): MergedBfclReport {
  if (reports.length < 2) throw new BfclMergeError(`--merge takes two reports or more, got ${reports.length}`);
  const first = reports[0]!;
  for (const [i, r] of reports.entries()) {
    if (!same(comparable(r), comparable(first)))
      throw new BfclMergeError(
        `report ${i + 1} was not made as report 1 was (checker, settings, machine or llama-server differ): ` +
          `${JSON.stringify(comparable(r))} against ${JSON.stringify(comparable(first))}`,
      );
    if (!!r.llamaServer !== !!first.llamaServer)
      throw new BfclMergeError(
        `report ${i + 1} ${r.llamaServer ? "has" : "lacks"} the llama-server mode; report 1 does not`,
      );
  }
  const sampleIds: Record<string, string[]> = {};
  for (const r of reports)
    for (const [category, ids] of Object.entries(r.settings.sampleIds)) {
      if (sampleIds[category] && !same(sampleIds[category], ids))
        throw new BfclMergeError(`the reports sampled other items of ${category}`);
      sampleIds[category] = ids;
    }
  const groups = new Set<string>();
  for (const r of reports)
    for (const row of r.rows) {
      const key = `${row.model} ${row.category} ${row.mode}`;
      if (groups.has(key))
        throw new BfclMergeError(`${key} is in two of the reports; merge runs that decoded other parts`);
      groups.add(key);
    }
  const models = new Map<string, BfclReport["models"][number]>();
  for (const r of reports)
    for (const m of r.models) {
      const seen = models.get(m.name);
      if (seen && (seen.path !== m.path || seen.dialect !== m.dialect))
        throw new BfclMergeError(`model ${m.name} was run from ${seen.path} and from ${m.path}`);
      if (!seen) models.set(m.name, m);
    }
  const categories = BFCL_CATEGORIES.filter((c) => reports.some((r) => r.settings.categories.includes(c)));
  const order = (c: string) => BFCL_CATEGORIES.indexOf(c as never);
  const names = [...models.keys()];
  const modelOrder = (m: string) => names.indexOf(m);
  return {
    ...first,
    generatedAt: reports
      .map((r) => r.generatedAt)
      .sort()
      .at(-1)!,
    command: reports.map((r) => r.command).join(" + "),
    mergedFrom: reports.map((r) => ({ command: r.command, generatedAt: r.generatedAt })),
    settings: { ...first.settings, categories, sampleIds },
    contradictedItems: [...new Set(reports.flatMap((r) => r.contradictedItems))],
    models: [...models.values()],
    rows: reports
      .flatMap((r) => r.rows)
      .sort((a, b) => modelOrder(a.model) - modelOrder(b.model) || order(a.category) - order(b.category)),
    answers: reports.flatMap((r) => r.answers),
  };
}
