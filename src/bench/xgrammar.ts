// XGrammar 0.1.27 (@mlc-ai/web-xgrammar, C++ as WASM; a devDependency) as the reference for mask
// time: the same grammar (our IR exported with toEbnf) over the same vocabulary, walked along the
// tokens our masked runs sampled. Loaded lazily; when it is not installed the bench says so.
// Its lib/index.js is a CommonJS bundle in a "type":"module" package, so a plain import sees no
// exports: the source is compiled as a CommonJS module (as scripts/lib/xgrammar.mjs does).
import { readFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { dirname } from "node:path";
import { resolveForVocabulary } from "../grammar/compile.js";
import { toEbnf } from "../grammar/export/ebnf.js";
import type { Grammar } from "../grammar/ir.js";
import type { Vocabulary } from "../vocab/vocabulary.js";

interface XgHandle {
  GetNextTokenBitmask(n: number): { delete(): void };
}
interface XgMatcher {
  handle: XgHandle;
  vocab_size: number;
  acceptToken(id: number): boolean;
  isTerminated(): boolean;
  dispose(): void;
}
interface XgCompiled {
  dispose(): void;
}
interface XgCompiler {
  compileGrammar(ebnf: string, root?: string): Promise<XgCompiled>;
  compileJSONSchema(schema: string, anyWhitespace?: boolean, indent?: number): Promise<XgCompiled>;
  dispose(): void;
}
interface XgTokenizerInfo {
  dispose(): void;
}
interface XgLib {
  Grammar: { fromEBNF(s: string): Promise<{ dispose(): void }> };
  TokenizerInfo: {
    createTokenizerInfo(
      vocab: string[],
      type: string,
      prependSpace: boolean,
      size?: number,
      stops?: number[],
    ): Promise<XgTokenizerInfo>;
  };
  GrammarCompiler: { createGrammarCompiler(ti: XgTokenizerInfo, cache: boolean): Promise<XgCompiler> };
  GrammarMatcher: {
    createGrammarMatcher(c: XgCompiled, stops?: number[], terminateWithoutStop?: boolean): Promise<XgMatcher>;
  };
}

/** Our grammar as XGrammar reads it (its WASM and native builds alike): toEbnf over `vocab`'s tokens. */
export function xgrammarEbnf(grammar: Grammar, vocab: Vocabulary): string {
  const tokenText = (id: number) => new TextDecoder().decode(vocab.tokenBytes(id));
  return toEbnf(resolveForVocabulary(grammar, vocab), { target: "xgrammar", tokenText });
}

const PACKAGE = "@mlc-ai/web-xgrammar";
export const XGRAMMAR_VERSION = "0.1.27";

let loading: Promise<XgLib> | undefined;

/** The bundle's exports, its WASM instance started (once per process; scripts/lib/xgrammar.mjs uses the same). */
export function loadXGrammarLib(): Promise<XgLib> {
  loading ??= loadLib();
  return loading;
}

async function loadLib(): Promise<XgLib> {
  const require = createRequire(import.meta.url);
  let file: string;
  try {
    file = require.resolve(`${PACKAGE}/lib/index.js`);
  } catch {
    throw new Error(
      `${PACKAGE} is not installed (it is a devDependency of toolmask: npm install -D ${PACKAGE}@${XGRAMMAR_VERSION})`,
    );
  }
  const M = Module as unknown as {
    new (
      id: string,
    ): { filename: string; paths: string[]; exports: unknown; _compile(src: string, file: string): void };
    _nodeModulePaths(dir: string): string[];
  };
  const m = new M(file);
  m.filename = file;
  m.paths = M._nodeModulePaths(dirname(file));
  m._compile(readFileSync(file, "utf8"), file);
  const xg = m.exports as XgLib;
  // The WASM instance starts on first use: start it now so timings exclude it.
  (await xg.Grammar.fromEBNF('root ::= "a"')).dispose();
  return xg;
}

/** GPT-2's byte-level alphabet: byte -> the character that spells it in an encoded vocabulary. */
function byteLevelAlphabet(): string[] {
  const keep = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  const out: string[] = [];
  let n = 0;
  for (let b = 0; b < 256; b++) out[b] = String.fromCodePoint(keep(b) ? b : 256 + n++);
  return out;
}

/** XGrammar and a TokenizerInfo + compiler for one vocabulary (token bytes, byte-level encoded). */
export interface XgEnv {
  lib: XgLib;
  info: XgTokenizerInfo;
  compiler: XgCompiler;
  vocabSize: number;
  stops: number[];
  tokenizerInfoMillis: number;
}

export async function openXGrammar(vocab: Vocabulary): Promise<XgEnv> {
  const lib = await loadXGrammarLib();
  const alphabet = byteLevelAlphabet();
  const encoded: string[] = [];
  for (let id = 0; id < vocab.size; id++) {
    let s = "";
    for (const b of vocab.tokenBytes(id)) s += alphabet[b]!;
    encoded.push(s);
  }
  const stops = [...vocab.endOfGenerationIds];
  const t = performance.now();
  const info = await lib.TokenizerInfo.createTokenizerInfo(encoded, "BYTE_LEVEL", false, vocab.size, stops);
  const tokenizerInfoMillis = performance.now() - t;
  const compiler = await lib.GrammarCompiler.createGrammarCompiler(info, false);
  return { lib, info, compiler, vocabSize: vocab.size, stops, tokenizerInfoMillis };
}

export function closeXGrammar(env: XgEnv): void {
  env.compiler.dispose();
  env.info.dispose();
}

export interface XgTiming {
  compileMillis: number;
  /** Per mask, nanoseconds: the C++ fill (with embind dispatch and the result vector), no JS copy. */
  samplesNs: number[];
  /** Walk steps XGrammar refused (tokens it does not allow where ours did); the walk stops there. */
  refused: number;
}

/**
 * Compiles `source` (EBNF, or a JSON schema when `json`) and times one mask per step along each
 * walk (a walk: token ids; an end-of-generation id ends it).
 */
export async function timeXGrammar(env: XgEnv, source: string, json: boolean, walks: number[][]): Promise<XgTiming> {
  const t = performance.now();
  const compiled = json
    ? await env.compiler.compileJSONSchema(source, false, -1)
    : await env.compiler.compileGrammar(source, "root");
  const compileMillis = performance.now() - t;
  const samplesNs: number[] = [];
  let refused = 0;
  try {
    // One untimed pass first (the WASM instance and caches warm), as our replay gets.
    for (const [pass, walk] of [[-1, walks[0] ?? []] as const, ...walks.map((w) => [0, w] as const)]) {
      const m = await env.lib.GrammarMatcher.createGrammarMatcher(compiled, env.stops, false);
      try {
        for (const id of walk) {
          if (m.isTerminated()) break; // after a stop token XGrammar's mask call aborts the instance
          const t0 = process.hrtime.bigint();
          const v = m.handle.GetNextTokenBitmask(env.vocabSize);
          if (pass === 0) samplesNs.push(Number(process.hrtime.bigint() - t0));
          v.delete();
          if (!m.acceptToken(id)) {
            if (pass === 0) refused++;
            break;
          }
        }
      } finally {
        m.dispose();
      }
    }
  } finally {
    compiled.dispose();
  }
  return { compileMillis, samplesNs, refused };
}
