// What the prompt-tokenizer suites share: vocabularies loaded without weights, texts that mix a
// vocabulary's special-token texts with parts of them, whitespace and plain text, and the
// comparison with llama.cpp's own llama_tokenize (the oracle).
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ensureLlamaLibrary } from "../../src/engine/llama-library.js";
import { loadNative, type NativeLlamaModel, type NativeTokenizeOutcome } from "../../src/native.js";
import { ROOT } from "./vocabs.js";

/** A GGUF's vocabulary in llama.cpp, without its weights (tokenize only). */
export async function loadVocabOnly(path: string): Promise<NativeLlamaModel> {
  ensureLlamaLibrary(false);
  return loadNative().llamaLoadModel(path, 0, () => {}, true);
}

/** The vocabulary-only GGUFs of llama.cpp's source (models/ggml-vocab-*.gguf): SPM, BPE and WPM vocabularies. */
export function llamaCppVocabFiles(): string[] {
  const dir = join(ROOT, ".cache", "llama.cpp", "models");
  return readdirSync(dir)
    .filter((f) => /^ggml-vocab-.*\.gguf$/.test(f))
    .sort()
    .map((f) => join(dir, f));
}

/** A seeded generator (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// llama.h's llama_token_attr bits.
const ATTR = { unknown: 1 << 0, control: 1 << 3, userDefined: 1 << 4 };

/**
 * The texts llama.cpp splits a prompt on (its special-token cache: control, user-defined and unknown
 * tokens), then other token texts shaped like a marker (<…>, [..]), which are plain text to it.
 */
export function specialTexts(native: NativeLlamaModel): SpecialTextSets {
  const v = native.vocabulary();
  const split = new Set<string>();
  const lookalike = new Set<string>();
  for (let id = 0; id < v.pieces.length; id++) {
    const text = v.pieces[id]!;
    if (!text) continue;
    if (v.attrs[id]! & (ATTR.unknown | ATTR.control | ATTR.userDefined)) split.add(text);
    else if (/^(<[^<>]*>|\[[^[\]]*\])$/.test(text)) lookalike.add(text);
  }
  return { split: [...split], lookalike: [...lookalike] };
}

export interface SpecialTextSets {
  split: string[];
  lookalike: string[];
}

const WORDS = [
  "hello",
  "world",
  " the",
  "Paris",
  "x",
  "42",
  "3.14",
  "é",
  "中文",
  "😀",
  "▁",
  "▁▁",
  "don't",
  "A-B",
  "<",
  ">",
  "|",
  "<|",
  "|>",
  "</",
  "{",
  '"',
];
const SPACES = [" ", "  ", "\n", "\n\n", "\t", " \n ", "\r\n", "   \t"];

/**
 * Two texts where the end of one is the start of the other, written once: "<a|b>" for "<a|" and
 * "a|b>". Which token llama.cpp takes there depends on its order (longest text first), not on
 * the position. At most `max`, found through a map of every text's prefixes.
 */
export function overlappingPairs(specials: string[], max = 2000): string[] {
  const byPrefix = new Map<string, string>();
  for (const b of specials)
    for (let k = 1; k < b.length; k++) if (!byPrefix.has(b.slice(0, k))) byPrefix.set(b.slice(0, k), b);
  const out: string[] = [];
  for (const a of specials)
    for (let k = 1; k < a.length && out.length < max; k++) {
      const b = byPrefix.get(a.slice(k));
      if (b !== undefined) out.push(a.slice(0, k) + b);
    }
  return out;
}

/** `count` texts mixing the given special texts, parts and overlaps of them, whitespace and words. */
export function mixedTexts(sets: SpecialTextSets, seed: number, count: number): string[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const specials = [...sets.split, ...sets.lookalike];
  const overlaps = overlappingPairs(sets.split);
  const part = (): string => {
    const s = specials.length ? pick(specials) : "<x>";
    const roll = r();
    if (roll < 0.1 && overlaps.length) return pick(overlaps);
    if (roll < 0.35) return s;
    if (roll < 0.45) return s.slice(0, 1 + Math.floor(r() * (s.length - 1))); // a prefix
    if (roll < 0.55) return s.slice(Math.floor(r() * s.length)); // a suffix
    if (roll < 0.65) {
      // two texts overlapping: the first without its end, then the second
      const t = specials.length ? pick(specials) : "<y>";
      return s.slice(0, s.length - 1) + t;
    }
    if (roll < 0.75) return pick(SPACES);
    if (roll < 0.8) return (r() < 0.5 ? " " : pick(SPACES)).repeat(1 + Math.floor(r() * 30)); // runs some vocabularies split on
    return pick(WORDS);
  };
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = 1 + Math.floor(r() * 24);
    let t = "";
    for (let k = 0; k < n; k++) t += part();
    out.push(t);
  }
  return out;
}

/** The tokenizer's outcome with no limit; throws when it refused or was cancelled. */
export async function tokenizeAll(native: NativeLlamaModel, text: string, special: boolean): Promise<number[]> {
  const out = await native.tokenize(text, { special }).done;
  if (!out.tokens) throw new Error(`tokenize gave no tokens: ${JSON.stringify(out)}`);
  return Array.from(out.tokens);
}

/** Texts (with their mode) where tokenize() and llama_tokenize differ, at most `max` of them. */
export async function differences(
  native: NativeLlamaModel,
  texts: string[],
  max = 5,
): Promise<Array<{ text: string; special: boolean; ours: number[]; llama: number[] }>> {
  const out: Array<{ text: string; special: boolean; ours: number[]; llama: number[] }> = [];
  for (const text of texts)
    for (const special of [true, false]) {
      const ours = await tokenizeAll(native, text, special);
      const llama = Array.from(native.llamaTokenize(text, special));
      if (ours.join() !== llama.join() && out.length < max) out.push({ text, special, ours, llama });
    }
  return out;
}

/** With maxTokens = the whole count c, the bound never refuses; with c - 1, whatever it says is at most c. */
export async function boundProblems(native: NativeLlamaModel, texts: string[]): Promise<string[]> {
  const problems: string[] = [];
  for (const text of texts) {
    const c = (await tokenizeAll(native, text, true)).length;
    const at: NativeTokenizeOutcome = await native.tokenize(text, { special: true, maxTokens: c }).done;
    if (at.tooLong)
      problems.push(`${JSON.stringify(text)}: ${c} tokens, refused at maxTokens ${c} (atLeast ${at.atLeast})`);
    if (c === 0) continue;
    const below = await native.tokenize(text, { special: true, maxTokens: c - 1 }).done;
    if (below.tooLong && below.atLeast > c)
      problems.push(`${JSON.stringify(text)}: ${c} tokens, bound said at least ${below.atLeast}`);
  }
  return problems;
}
