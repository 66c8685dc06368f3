// Differential testing of our token masks against XGrammar 0.1.27 (WASM) on one vocabulary.
// Both engines walk the same token sequence; at every step the full masks are compared and every
// differing token is either explained by a named, checked reason (see `Category`) or reported.
//
// Loading: scripts/lib/xgrammar.mjs is plain ESM without type declarations; it is imported by URL
// (a non-literal specifier, so TypeScript needs no declaration file) and typed by `XgLib` below.
import { TokenKind, type CompiledGrammar, type GrammarMatcher, type Vocabulary } from "../../src/index.js";
import { type Tokenizations, rng } from "./tokenize.js";

// ---- the XGrammar helper module, typed ---------------------------------------------------------

export interface XgTokenizerInfo {
  getVocabSize(): number;
  dispose(): void;
}
export interface XgCompiler {
  dispose(): void;
}
export interface XgCompiled {
  dispose(): void;
}
export interface XgMatcher {
  acceptToken(id: number): boolean;
  getNextTokenBitmask(): Promise<Int32Array>;
  isTerminated(): boolean;
  reset(): void;
  rollBack(n: number): void;
  dispose(): void;
}
export interface XgLib {
  QWEN3_TOKENIZER_JSON: string;
  readEncodedVocab(path?: string): string[];
  createTokenizerInfo(
    vocab: string[],
    opts?: { stopTokenIds?: number[]; vocabSize?: number },
  ): Promise<XgTokenizerInfo>;
  createCompiler(ti: XgTokenizerInfo, opts?: { cache?: boolean }): Promise<XgCompiler>;
  compileEbnf(ebnf: string, opts: { compiler: XgCompiler; rootRule?: string }): Promise<XgCompiled>;
  compileJsonSchema(
    schema: unknown,
    opts: {
      compiler: XgCompiler;
      anyWhitespace?: boolean;
      indent?: number;
      separators?: [string, string];
      strictMode?: boolean;
      maxWhitespaceCnt?: number;
    },
  ): Promise<XgCompiled>;
  createMatcher(
    compiled: XgCompiled,
    opts?: { stopTokenIds?: number[]; terminateWithoutStopToken?: boolean },
  ): Promise<XgMatcher>;
}

const XG_URL: string = new URL("../../scripts/lib/xgrammar.mjs", import.meta.url).href;
let xgLib: Promise<XgLib> | undefined;
export function loadXgLib(): Promise<XgLib> {
  return (xgLib ??= import(XG_URL).then((m) => m as XgLib));
}

// ---- explanations ------------------------------------------------------------------------------

/** Why a token's bit differs between the engines. Every category is a checked claim, not a blanket pass. */
export type Category =
  /** XGrammar sets bits past the vocabulary in the last mask word (ids vocab.size..). */
  | "padding-bits"
  /** A token that is a control/EOG token to us (never text) which XGrammar matches through its text;
   *  checked: our grammar accepts that text as text at this point. */
  | "special-token-as-text"
  /** An end-of-generation token of ours that is not one of XGrammar's stop tokens, where our grammar may end. */
  | "stop-token-set"
  /** XGrammar's negated classes let through tokens with bytes that never occur in UTF-8 (C0, C1, F5–FF). */
  | "invalid-utf8-bytes"
  /** …and continuation bytes that make the pending character ill-formed UTF-8 (overlong E0 80–9F /
   *  F0 80–8F, surrogates ED A0–BF, above U+10FFFF F4 90–BF); checked on the walk's bytes plus the token. */
  | "ill-formed-utf8"
  /** XGrammar 0.1.27 reads non-ASCII class members as bytes; checked: XGrammar's bit equals our
   *  engine's bit on a model grammar with the class read as bytes. */
  | "non-ascii-class-bug"
  /** XGrammar's JSON-schema integers have no `-0`; ours accept it (documented in json-schema.ts). */
  | "json-minus-zero"
  /** XGrammar's JSON strings accept lone surrogate `\u` escapes; ours only valid pairs. */
  | "json-lone-surrogate-escape"
  /** XGrammar's JSON whitespace (any-whitespace mode) is [ \n\t]; ours also allows \r. */
  | "json-whitespace-cr"
  /** XGrammar's JSON numbers are unbounded; ours are spellings of finite doubles (json-schema/numbers.ts). */
  | "json-number-bound";

export const CATEGORIES: Category[] = [
  "padding-bits",
  "special-token-as-text",
  "stop-token-set",
  "invalid-utf8-bytes",
  "ill-formed-utf8",
  "non-ascii-class-bug",
  "json-minus-zero",
  "json-lone-surrogate-escape",
  "json-whitespace-cr",
  "json-number-bound",
];

/** What a classifier sees about one differing token. */
export interface DiffContext {
  id: number;
  ours: boolean;
  xgrammar: boolean;
  /** Bytes accepted so far on this walk. */
  text: Uint8Array;
  /** The last (up to 64) of those bytes as a latin1 string, cut where no backslash run is split. */
  recentText: string;
  /** The bytes of a character cut short at the end of `text` (0-3 bytes). */
  pendingChar: Uint8Array;
  /** The token's bytes (empty for padding ids). */
  bytes: Uint8Array;
  vocab: Vocabulary;
  /** Our matcher at this step (classifiers may probe it; they must leave it as found). */
  matcher: GrammarMatcher;
  /** XGrammar's stop tokens. */
  xgStops: ReadonlySet<number>;
  /** Model grammar matcher at this step, for cases that define one (see `WalkCase.model`). */
  model?: { matcher: GrammarMatcher; mask: Uint32Array };
}

export type Classifier = (c: DiffContext) => Category | null;

const isSet = (mask: ArrayLike<number>, id: number) => ((mask[id >>> 5]! >>> (id & 31)) & 1) === 1;

/** Bytes that never occur in valid UTF-8. */
export const isInvalidUtf8Byte = (b: number) => b === 0xc0 || b === 0xc1 || b >= 0xf5;

/** Our matcher accepts these bytes as text right now (probe, then undo). */
function acceptsBytesNow(m: GrammarMatcher, bytes: Uint8Array): boolean {
  const ok = m.acceptString(Buffer.from(bytes).toString("utf8"));
  if (ok) m.rollback(1);
  return ok && Buffer.from(Buffer.from(bytes).toString("utf8"), "utf8").equals(Buffer.from(bytes));
}

/** The explanations that hold for every grammar. */
export const baseClassifier: Classifier = (c) => {
  if (c.id >= c.vocab.size) return c.xgrammar && !c.ours ? "padding-bits" : null;
  const kind = c.vocab.kind(c.id);
  if (
    c.xgrammar &&
    !c.ours &&
    kind !== TokenKind.Normal &&
    !c.xgStops.has(c.id) &&
    c.bytes.length > 0 &&
    acceptsBytesNow(c.matcher, c.bytes)
  )
    return "special-token-as-text";
  if (c.ours && !c.xgrammar && kind === TokenKind.EndOfGeneration && !c.xgStops.has(c.id) && c.matcher.isComplete())
    return "stop-token-set";
  if (c.xgrammar && !c.ours && c.bytes.some(isInvalidUtf8Byte)) return "invalid-utf8-bytes";
  if (c.xgrammar && !c.ours && !isWellFormedUtf8Prefix(concat(c.pendingChar, c.bytes))) return "ill-formed-utf8";
  return null;
};

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Well-formed UTF-8 (Unicode Table 3-7), except that the last character may be cut short. */
export function isWellFormedUtf8Prefix(b: Uint8Array): boolean {
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let n: number,
      lo = 0x80,
      hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) lo = 0xa0;
      if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) lo = 0x90;
      if (c === 0xf4) hi = 0x8f;
    } else return false;
    for (let k = 1; k <= n; k++) {
      if (i + k >= b.length) return true;
      const d = b[i + k]!;
      if (k === 1 ? d < lo || d > hi : d < 0x80 || d > 0xbf) return false;
    }
    i += n + 1;
  }
  return true;
}

/** The non-ASCII class bug: XGrammar agrees with our engine on a byte-reading model grammar. */
export const byteModelClassifier: Classifier = (c) =>
  c.model && c.id < c.vocab.size && c.bytes.some((b) => b >= 0x80) && isSet(c.model.mask, c.id) === c.xgrammar
    ? "non-ascii-class-bug"
    : null;

/** Differences between our JSON-schema lowering and XGrammar's own JSON-schema compiler. */
export const xgJsonSchemaClassifier: Classifier = (c) => {
  const tok = Buffer.from(c.bytes).toString("latin1");
  // `-0`: ours allow a lone "0" right after the minus sign of an integer; XGrammar has "-"? [1-9].
  // (A "0" followed by more of a number would be a number, where both allow it: never explained.)
  if (c.ours && !c.xgrammar && /(?:^|[:,[\s])-$/.test(c.recentText) && /^0(?![0-9.eE])/.test(tok))
    return "json-minus-zero";
  // \r in whitespace: every \r of the token falls outside JSON strings (where raw controls are invalid).
  if (c.ours && !c.xgrammar && tok.includes("\r") && crOnlyOutsideStrings(Buffer.from(c.text).toString("latin1"), tok))
    return "json-whitespace-cr";
  // Lone surrogate escape: the text plus the token holds a \u escape of a surrogate that cannot be
  // part of a valid pair (low without a preceding high, or high followed by anything but \uDC00-DFFF).
  if (c.xgrammar && !c.ours && hasLoneSurrogateEscape(c.recentText + tok)) return "json-lone-surrogate-escape";
  // A number the token would take past the documented bound, which no further character brings back.
  if (c.xgrammar && !c.ours) {
    const number = /-?[0-9][0-9.eE+-]*$/.exec(c.recentText)?.[0] ?? "";
    const more = /^[0-9.eE+-]*/.exec(tok)![0];
    if (number && more && pastNumberBound(number + more)) return "json-number-bound";
  }
  return null;
};

/**
 * A JSON number prefix no continuation brings into the finite-double spellings json-schema/numbers.ts
 * admits: an integer part over 308 digits; with an exponent, a mantissa over 20 integer digits,
 * an exponent over 4 digits, over 288 with 2–20 integer digits, over 307 with one (308 only for
 * 1.x up to 1.7976931348623158).
 */
export function pastNumberBound(s: string): boolean {
  const m = /^-?([0-9]+)(?:\.([0-9]*))?(?:[eE]([+-]?)([0-9]*))?$/.exec(s);
  if (!m) return false;
  const [, int, frac = "", sign, exp] = m as unknown as [
    string,
    string,
    string | undefined,
    string | undefined,
    string | undefined,
  ];
  if (exp === undefined) return int.length > 308;
  if (int.length > 20 || exp.length > 4) return true;
  if (sign === "-" || exp === "") return false;
  const x = Number(exp);
  if (int.length > 1) return x > 288;
  if (x <= 307) return false;
  return (
    x > 308 ||
    int !== "1" ||
    `${frac}`.padEnd(16, "0").slice(0, 16) > "7976931348623158" ||
    /[1-9]/.test(frac.slice(16))
  );
}

/** Every \r of `tok`, read after the JSON text `text`, is outside a string. */
export function crOnlyOutsideStrings(text: string, tok: string): boolean {
  let inString = false,
    escaped = false;
  const s = text + tok;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (i >= text.length && ch === "\r" && inString) return false;
    if (!inString) {
      if (ch === '"') inString = true;
      continue;
    }
    if (escaped) escaped = false;
    else if (ch === "\\") escaped = true;
    else if (ch === '"') inString = false;
  }
  return true;
}

/**
 * `s` (JSON text, possibly cut anywhere) holds a `\u` escape that can only be an unpaired
 * surrogate: one that is (or, cut short, can only become) a low surrogate \uDC00–\uDFFF without a
 * high one right before it, or a high surrogate \uD800–\uDBFF followed by anything that cannot
 * become a low one. A pending high surrogate at the very end is not judged yet.
 */
export function hasLoneSurrogateEscape(s: string): boolean {
  const re = /\\u([0-9a-fA-F]{0,4})/g;
  let highEnd = -1; // end of the last high surrogate escape still waiting for its low half
  for (let m = re.exec(s); m; m = re.exec(s)) {
    let bs = 0; // an escape starts at an unescaped backslash
    for (let i = m.index - 1; i >= 0 && s[i] === "\\"; i--) bs++;
    if (bs % 2 === 1) continue;
    const hex = m[1]!;
    const end = m.index + m[0].length;
    if (hex.length < 4 && end !== s.length) continue; // a broken escape: neither engine accepts it
    const lo = parseInt(hex.padEnd(4, "0") || "0", 16),
      hi = parseInt(hex.padEnd(4, "f"), 16);
    const canBeLow = lo <= 0xdfff && hi >= 0xdc00,
      mustBeLow = lo >= 0xdc00 && hi <= 0xdfff;
    if (highEnd >= 0) {
      if (m.index !== highEnd || !canBeLow) return true;
      highEnd = -1;
      continue;
    }
    if (mustBeLow) return true;
    if (hex.length === 4 && lo >= 0xd800 && lo <= 0xdbff) highEnd = end;
  }
  if (highEnd < 0) return false;
  const rest = s.slice(highEnd);
  return rest !== "" && rest !== "\\";
}

// ---- recording ---------------------------------------------------------------------------------

export interface CategoryStats {
  steps: number;
  ids: Set<number>;
  stepKeys: Set<string>;
}

export class DiffStats {
  readonly byCategory = new Map<Category, CategoryStats>();
  readonly unexplained: string[] = [];
  walks = 0;
  steps = 0;
  /** Steps where the masks were bit-identical over the vocabulary. */
  identicalSteps = 0;
  /** Bits compared (vocabulary ids, all steps). */
  bitsCompared = 0;
  /** acceptToken comparisons (each call made on both engines, verdicts checked). */
  verdictChecks = 0;
  tokensAccepted = 0;
  completedWalks = 0;

  record(cat: Category, id: number, stepKey: string) {
    let s = this.byCategory.get(cat);
    if (!s) {
      s = { steps: 0, ids: new Set(), stepKeys: new Set() };
      this.byCategory.set(cat, s);
    }
    if (!s.stepKeys.has(stepKey)) {
      s.stepKeys.add(stepKey);
      s.steps++;
    }
    s.ids.add(id);
  }

  /** Adds another run's counts (step keys are prefixed so different runs never collide). */
  merge(o: DiffStats, prefix: string) {
    this.walks += o.walks;
    this.steps += o.steps;
    this.identicalSteps += o.identicalSteps;
    this.bitsCompared += o.bitsCompared;
    this.verdictChecks += o.verdictChecks;
    this.tokensAccepted += o.tokensAccepted;
    this.completedWalks += o.completedWalks;
    this.unexplained.push(...o.unexplained);
    for (const [cat, v] of o.byCategory) {
      let s = this.byCategory.get(cat);
      if (!s) {
        s = { steps: 0, ids: new Set(), stepKeys: new Set() };
        this.byCategory.set(cat, s);
      }
      for (const id of v.ids) s.ids.add(id);
      for (const k of v.stepKeys) s.stepKeys.add(`${prefix}/${k}`);
      s.steps = s.stepKeys.size;
    }
  }

  ids(cat: Category): number[] {
    return [...(this.byCategory.get(cat)?.ids ?? [])].sort((a, b) => a - b);
  }
  stepsWith(cat: Category): number {
    return this.byCategory.get(cat)?.steps ?? 0;
  }

  summary(): string {
    const cats = [...this.byCategory.entries()].map(([k, v]) => `${k}: ${v.steps} steps, ${v.ids.size} ids`).join("; ");
    return (
      `${this.walks} walks, ${this.steps} steps (${this.identicalSteps} identical), ${this.verdictChecks} verdict checks` +
      (cats ? ` — ${cats}` : " — no differences")
    );
  }
}

// ---- the walker --------------------------------------------------------------------------------

export interface Engines {
  vocab: Vocabulary;
  tokenizations: Tokenizations;
  /** XGrammar's stop tokens (as configured in its TokenizerInfo). */
  xgStops: ReadonlySet<number>;
}

export interface WalkCase {
  name: string;
  ours: CompiledGrammar;
  xgrammar: XgCompiled;
  /** Our engine on a model of XGrammar's reading of the grammar (for byteModelClassifier). */
  model?: CompiledGrammar;
  /** Strings of the language: walked along random tokenizations, and their tokens bias random walks. */
  valid: string[];
  /** Token sequences walked as they are (each must spell a string of the language). */
  fixedWalks?: number[][];
  /** Tried in order on every differing token; the first category returned explains it. */
  classifiers: Classifier[];
  randomWalks: number;
  tokenizationWalks: number;
  /** Step bound for random walks. */
  maxSteps: number;
  seed: number;
}

function showId(v: Vocabulary, id: number): string {
  return id < v.size ? `${id}:${JSON.stringify(v.piece(id))}` : `${id}:<padding>`;
}

/**
 * Runs every walk of a case with one matcher per engine; returns the statistics (failures are
 * collected in `unexplained`; a walk stops at its first unexplained difference).
 */
export async function runCase(e: Engines, xg: XgLib, c: WalkCase): Promise<DiffStats> {
  const { vocab } = e;
  const stats = new DiffStats();
  const ours = c.ours.createMatcher();
  const model = c.model?.createMatcher();
  const xm = await xg.createMatcher(c.xgrammar);
  const a = ours.allocateBitmask();
  const ma = model?.allocateBitmask();
  const both = new Uint32Array(a.length);
  const tail = vocab.size % 32 === 0 ? 0 : (2 ** (vocab.size % 32) - 1) >>> 0; // vocabulary bits of the last word
  const rand = rng(c.seed);
  const eog = new Set(vocab.endOfGenerationIds);
  const eogList = [...eog];
  const noProbe = (id: number) => eog.has(id) || e.xgStops.has(id); // accepting a stop token ends the walk
  // The stop token that ends tokenization walks: one both engines stop on.
  const endId = eogList.find((id) => e.xgStops.has(id));
  if (endId === undefined) throw new Error("no end-of-generation token is a stop token of XGrammar's too");

  // Bias for random walks: the tokens of a few random tokenizations of the valid strings.
  const bias = new Set<number>();
  for (const s of c.valid) for (let k = 0; k < 4; k++) for (const id of e.tokenizations.random(s, rand)) bias.add(id);
  const biasList = [...bias];

  const walks: Array<{ kind: "random" | "tokens"; tokens?: number[]; label: string }> = [];
  (c.fixedWalks ?? []).forEach((tokens, w) => walks.push({ kind: "tokens", tokens, label: `fixed walk #${w}` }));
  for (let w = 0; w < c.tokenizationWalks; w++) {
    const s = c.valid[w % c.valid.length]!;
    walks.push({
      kind: "tokens",
      tokens: e.tokenizations.random(s, rand),
      label: `tokenization #${w} of ${JSON.stringify(s.slice(0, 60))}`,
    });
  }
  for (let w = 0; w < c.randomWalks; w++) walks.push({ kind: "random", label: `random walk #${w}` });

  try {
    for (const walk of walks) {
      stats.walks++;
      ours.reset();
      xm.reset();
      model?.reset();
      const history: number[] = [];
      const text: number[] = [];
      const limit = walk.kind === "tokens" ? walk.tokens!.length : c.maxSteps;
      for (let step = 0; ; step++) {
        ours.fillNextTokenBitmask(a);
        const b = await xm.getNextTokenBitmask();
        if (model) model.fillNextTokenBitmask(ma!);
        stats.steps++;
        stats.bitsCompared += vocab.size;
        const where = () =>
          `${c.name}, ${walk.label}, step ${step} after ${JSON.stringify(Buffer.from(text).toString("utf8"))} (tokens ${history.join(",")})`;
        if (b.length !== a.length) throw new Error(`${where()}: mask sizes differ (${a.length} vs ${b.length} words)`);

        // ---- compare the masks, classify every differing bit
        const textBytes = Uint8Array.from(text);
        const recentText = recent(textBytes);
        const pendingChar = pendingUtf8(textBytes);
        let identical = true;
        const unexplained: Array<[number, boolean]> = [];
        const differing: number[] = [];
        for (let w = 0; w < a.length; w++) {
          const x = (a[w]! ^ b[w]!) >>> 0;
          if (x === 0) continue;
          for (let bit = 0; bit < 32; bit++) {
            if (((x >>> bit) & 1) === 0) continue;
            const id = w * 32 + bit;
            if (id < vocab.size) {
              identical = false;
              differing.push(id);
            }
            const oursBit = isSet(a, id);
            const ctx: DiffContext = {
              id,
              ours: oursBit,
              xgrammar: !oursBit,
              text: textBytes,
              recentText,
              pendingChar,
              bytes: id < vocab.size ? vocab.tokenBytes(id) : new Uint8Array(0),
              vocab,
              matcher: ours,
              xgStops: e.xgStops,
              ...(model ? { model: { matcher: model, mask: ma! } } : {}),
            };
            let cat: Category | null = null;
            for (const f of c.classifiers) {
              cat = f(ctx);
              if (cat) break;
            }
            if (cat) stats.record(cat, id, `${stats.walks}:${step}`);
            else unexplained.push([id, oursBit]);
          }
        }
        if (identical) stats.identicalSteps++;
        if (unexplained.length > 0) {
          const list = (ids: number[]) =>
            `[${ids
              .slice(0, 12)
              .map((id) => showId(vocab, id))
              .join(" ")}${ids.length > 12 ? ` …+${ids.length - 12}` : ""}]`;
          stats.unexplained.push(
            `${where()}: ${unexplained.length} unexplained differences; only ours allows ` +
              `${list(unexplained.filter(([, o]) => o).map(([id]) => id))}, only XGrammar allows ${list(unexplained.filter(([, o]) => !o).map(([id]) => id))}`,
          );
          break; // the walk may now diverge; report this one and go on with the next walk
        }

        // ---- acceptToken: each engine against its own mask on differing tokens; the engines
        // against each other on a sample of tokens both allow and tokens both refuse.
        for (let w = 0; w < a.length; w++) both[w] = a[w]! & b[w]!;
        if (tail) both[a.length - 1]! &= tail;
        const bothCount = popcount(both);
        const probes: Array<[number, boolean, boolean]> = [];
        for (const id of sample(
          differing.filter((id) => !noProbe(id)),
          6,
          rand,
        ))
          probes.push([id, isSet(a, id), isSet(b, id)]);
        for (let k = 0; k < 3 && bothCount > 0; k++) {
          const id = nthSetBit(both, Math.floor(rand() * bothCount));
          if (!noProbe(id)) probes.push([id, true, true]);
        }
        for (let k = 0; k < 3; k++) {
          const id = Math.floor(rand() * vocab.size);
          if (!isSet(a, id) && !isSet(b, id) && !noProbe(id)) probes.push([id, false, false]);
        }
        for (const [id, wantOurs, wantXg] of probes) {
          const ro = ours.acceptToken(id);
          if (ro) ours.rollback(1);
          const rx = xm.acceptToken(id);
          if (rx) xm.rollBack(1);
          stats.verdictChecks++;
          if (ro !== wantOurs || rx !== wantXg)
            stats.unexplained.push(
              `${where()}: acceptToken(${showId(vocab, id)}) ours=${ro} (mask ${wantOurs}), XGrammar=${rx} (mask ${wantXg})`,
            );
        }

        // ---- the next token: the walk's, or a random one both engines allow (biased toward the
        // valid strings' tokens, and toward stopping when a stop token is allowed)
        let pick: number;
        if (step >= limit) {
          if (walk.kind === "random") break;
          // the end of a valid string: both must be able to stop here
          if (!ours.isComplete()) {
            stats.unexplained.push(`${where()}: our matcher is not complete at the end of a valid string`);
            break;
          }
          pick = endId;
        } else if (walk.kind === "tokens") pick = walk.tokens![step]!;
        else {
          if (bothCount === 0) break;
          const stops = eogList.filter((id) => isSet(both, id));
          const biased = biasList.filter((id) => isSet(both, id));
          if (stops.length > 0 && rand() < 0.5) pick = stops[Math.floor(rand() * stops.length)]!;
          else if (biased.length > 0 && rand() < 0.75) pick = biased[Math.floor(rand() * biased.length)]!;
          else pick = nthSetBit(both, Math.floor(rand() * bothCount));
        }
        const ro = ours.acceptToken(pick);
        const rx = xm.acceptToken(pick);
        if (model && !model.acceptToken(pick))
          stats.unexplained.push(`${where()}: the model grammar refuses ${showId(vocab, pick)}`);
        stats.verdictChecks++;
        if (!ro || !rx) {
          stats.unexplained.push(
            `${where()}: acceptToken(${showId(vocab, pick)}) ours=${ro}, XGrammar=${rx}, expected both true`,
          );
          break;
        }
        stats.tokensAccepted++;
        history.push(pick);
        if (ours.isTerminated() || xm.isTerminated()) {
          if (ours.isTerminated() !== xm.isTerminated())
            stats.unexplained.push(
              `${where()}: after ${showId(vocab, pick)} ours terminated=${ours.isTerminated()}, XGrammar terminated=${xm.isTerminated()}`,
            );
          else stats.completedWalks++;
          break;
        }
        if (step >= limit) {
          stats.unexplained.push(`${where()}: a stop token did not terminate both matchers`);
          break;
        }
        text.push(...vocab.tokenBytes(pick));
      }
    }
  } finally {
    xm.dispose();
  }
  return stats;
}

/** Latin1 text of the last 64 bytes or so, never starting inside a run of backslashes. */
function recent(b: Uint8Array): string {
  let from = Math.max(0, b.length - 64);
  while (from > 0 && b[from - 1] === 0x5c) from--;
  return Buffer.from(b.subarray(from)).toString("latin1");
}

/** The trailing bytes of an incomplete UTF-8 character (text assumed well-formed). */
function pendingUtf8(b: Uint8Array): Uint8Array {
  for (let k = 1; k <= Math.min(3, b.length); k++) {
    const c = b[b.length - k]!;
    if ((c & 0xc0) === 0x80) continue; // continuation byte: look further back
    const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    return need > k ? b.slice(b.length - k) : new Uint8Array(0);
  }
  return new Uint8Array(0);
}

const popcount32 = (x: number): number => {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
};

function popcount(words: Uint32Array): number {
  let n = 0;
  for (let w = 0; w < words.length; w++) n += popcount32(words[w]!);
  return n;
}

/** Id of the k-th set bit (0-based) of a mask. */
function nthSetBit(words: Uint32Array, k: number): number {
  for (let w = 0; w < words.length; w++) {
    const n = popcount32(words[w]!);
    if (k >= n) {
      k -= n;
      continue;
    }
    for (let bit = 0; bit < 32; bit++)
      if ((words[w]! >>> bit) & 1) {
        if (k-- === 0) return w * 32 + bit;
      }
  }
  throw new RangeError("nthSetBit: k out of range");
}

function sample<T>(xs: T[], n: number, rand: () => number): T[] {
  if (xs.length <= n) return xs;
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(xs[Math.floor(rand() * xs.length)]!);
  return out;
}
