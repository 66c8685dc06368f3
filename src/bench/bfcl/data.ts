// Reads a category's items and ground truth from bfcl-eval's data folder.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type BfclCategory, type BfclGroundTruthCall, type BfclItem, categoryFile } from "./types.js";

const jsonLines = (file: string): Array<Record<string, unknown>> =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l, i) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch (e) {
        throw new Error(`${file}:${i + 1}: not JSON (${(e as Error).message})`);
      }
    });

/** Every item of `category`, in the data file's order. */
export function loadCategory(dataDir: string, category: BfclCategory): BfclItem[] {
  const file = join(dataDir, `${categoryFile(category)}.json`);
  if (!existsSync(file)) throw new Error(`${file} is missing: is bfcl-eval installed (npm run pyenv -- bfcl)?`);
  const truth = new Map<string, BfclGroundTruthCall[]>();
  if (category !== "irrelevance") {
    const answers = join(dataDir, "possible_answer", `${categoryFile(category)}.json`);
    for (const a of jsonLines(answers)) truth.set(a.id as string, a.ground_truth as BfclGroundTruthCall[]);
  }
  return jsonLines(file).map((e) => {
    const turns = e.question as Array<Array<{ role: string; content: string }>>;
    if (turns.length !== 1) throw new Error(`${e.id}: ${turns.length} turns; the ${category} category should have one`);
    const groundTruth = category === "irrelevance" ? [] : truth.get(e.id as string);
    if (!groundTruth) throw new Error(`${e.id}: no ground truth in possible_answer/${categoryFile(category)}.json`);
    return {
      id: e.id as string,
      category,
      messages: turns[0]!,
      functions: e.function as BfclItem["functions"],
      groundTruth,
    };
  });
}

/**
 * A fixed sample: `n` items spread evenly over the file (indices ⌊i·len/n⌋), so the same n gives the
 * same items on every run and machine.
 */
export function sampleItems<T>(items: readonly T[], n: number | undefined): T[] {
  if (n === undefined || n >= items.length) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]!);
}
