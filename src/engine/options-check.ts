// What a caller passes to generate(), generateStream() and loadModel() (and runAgent()), checked
// beyond each option's own range: a name that is no option (a misspelt `maxToken` would do
// nothing), a logitBias key that is not a token id, and the TOOLMASK_BACKEND_MASK override the
// backend mask path reads (native/llama/mask_backend.cpp).
import type { Vocabulary } from "../vocab/vocabulary.js";

/** Every key of T, as a list: a name missing from `names` or not in T does not compile. */
export function optionNames<T>(names: { [K in keyof Required<T>]: true }): readonly string[] {
  return Object.keys(names);
}

/** Throws a TypeError naming the first key of `options` not in `known`, and the known name closest to it. */
export function checkOptionNames(what: string, options: object, known: readonly string[]): void {
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    throw new TypeError(
      `${what}: unknown option ${JSON.stringify(name)}; did you mean ${JSON.stringify(closestName(name, known))}? (the options: ${known.join(", ")})`,
    );
  }
}

/** The name in `known` fewest edits away from `name`, case, "_" and "-" aside (logit_bias → logitBias). */
export function closestName(name: string, known: readonly string[]): string {
  const fold = (s: string) => s.toLowerCase().replace(/[-_]/g, "");
  const a = fold(name);
  let best = known[0] ?? "",
    bestDistance = Infinity;
  for (const k of known) {
    const d = editDistance(a, fold(k));
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

/** Levenshtein distance (insert, delete, substitute: 1 each). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

export interface CheckedGenerateOptions {
  logitBias?: Record<number, number>;
  maskPath?: string;
}

/** generate()'s and generateStream()'s option checks that need no decoding: names, logitBias keys, the backend mask override. */
export function checkGenerateOptions(
  options: CheckedGenerateOptions | undefined,
  known: readonly string[],
  vocabulary: Vocabulary,
): void {
  if (options === null || typeof options !== "object") return; // the caller says what is missing
  checkOptionNames("generate", options, known);
  if (options.logitBias && typeof options.logitBias === "object") checkLogitBiasKeys(options.logitBias, vocabulary);
  if (options.maskPath === "backend") backendMaskOverride();
}

/**
 * logitBias keys are token ids, as in OpenAI's logit_bias; a piece (what the CLI's --logit-bias
 * also takes) is refused with its id when the vocabulary has it, since a digit key would be
 * ambiguous between an id and a piece such as "13".
 */
function checkLogitBiasKeys(bias: object, vocabulary: Vocabulary): void {
  for (const key of Object.keys(bias)) {
    if (/^-?\d+$/.test(key)) continue;
    const id = vocabulary.idOfPiece(key);
    throw new TypeError(
      `logitBias keys are token ids; ${JSON.stringify(key)} is not one: look a piece's id up with ` +
        `model.vocabulary.idOfPiece(${JSON.stringify(key)})${id !== undefined ? ` (it is token ${id} here)` : " (this vocabulary has no such piece)"}`,
    );
  }
}

const BACKEND_MASKS = ["dense", "packed", "resident"] as const;
type BackendMask = (typeof BACKEND_MASKS)[number];

/**
 * The representation TOOLMASK_BACKEND_MASK forces on the backend mask path, or undefined (unset
 * or empty: dense on the CPU backend, packed on a GPU). Any other value is an error, not a silent
 * fallback to the default: it would make a benchmark of one representation measure the other.
 */
export function backendMaskOverride(): BackendMask | undefined {
  const v = process.env.TOOLMASK_BACKEND_MASK;
  if (v === undefined || v === "") return undefined;
  if ((BACKEND_MASKS as readonly string[]).includes(v)) return v as BackendMask;
  throw new Error(
    `TOOLMASK_BACKEND_MASK=${JSON.stringify(v)} is not understood: use ${BACKEND_MASKS.map((m) => `"${m}"`).join(", ")}, or unset it for the default (dense on the CPU backend, packed on a GPU)`,
  );
}
