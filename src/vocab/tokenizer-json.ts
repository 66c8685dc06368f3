// Vocabulary from a Hugging Face tokenizer.json: byte-level BPE (GPT-2 style, e.g. Qwen, Llama 3)
// and SentencePiece-style BPE/Unigram (`▁` for space, `<0xNN>` byte fallback, e.g. Llama 2).
// Added tokens are typed as convert_hf_to_gguf types them, then classified as llama.cpp does, so
// a tokenizer.json and the GGUF made from it give the same vocabulary.

import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import {
  Attr,
  byteTokenValue,
  finishVocabulary,
  looksSpecial,
  type RawVocabulary,
  type SpecialIds,
  type TextMode,
} from "./pieces.js";
import type { VocabularyData } from "./types.js";

export interface TokenizerJsonOptions {
  /** Further pieces to treat as end of generation (added to llama.cpp's list and the config's eos). */
  eogPieces?: string[];
}

// Far above any real vocabulary; guards against a corrupt id allocating gigabytes.
const MAX_VOCAB = 1 << 24;

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Does a decoder / pre-tokenizer (possibly a Sequence) contain a component matching `test`? */
function hasComponent(node: unknown, test: (c: Json) => boolean): boolean {
  if (!isObject(node)) return false;
  if (test(node)) return true;
  for (const key of ["decoders", "pretokenizers", "normalizers"]) {
    const list = node[key];
    if (Array.isArray(list) && list.some((c) => hasComponent(c, test))) return true;
  }
  return false;
}

/**
 * The text with the BPE merges array replaced by `[]`: merges are a third of a large
 * tokenizer.json and unused here, and parsing them costs ~100 ms. Only for the layout the
 * tokenizers library writes (merges last in model, model last in the file); else undefined.
 */
function withoutMerges(text: string): string | undefined {
  const close = text.lastIndexOf("]");
  if (close < 0 || !/^\s*}\s*}\s*$/.test(text.slice(close + 1))) return undefined;
  const key = /[{,]\s*"merges"\s*:\s*\[/g;
  key.lastIndex = Math.max(0, text.lastIndexOf('"merges"', close) - 64);
  const m = key.exec(text);
  if (!m || m.index > close) return undefined;
  return `${text.slice(0, m.index + 1)}"merges":[]${text.slice(close + 1)}`;
}

function readJson(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(
      code === "ENOENT" ? `${what} not found: ${file}` : `cannot read ${what} ${file}: ${(err as Error).message}`,
    );
  }
  const slim = what === "tokenizer.json" ? withoutMerges(text) : undefined;
  if (slim !== undefined) {
    try {
      return JSON.parse(slim);
    } catch {
      // fall through: the full text gives the real error, if any
    }
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}

/** eos_token of a tokenizer_config.json beside the tokenizer, if any (a string or an AddedToken object). */
function configEosPiece(dir: string): string | undefined {
  const file = path.join(dir, "tokenizer_config.json");
  if (!existsSync(file)) return undefined;
  const config = readJson(file, "tokenizer_config.json");
  if (!isObject(config)) return undefined;
  const eos = config.eos_token;
  if (typeof eos === "string") return eos;
  if (isObject(eos) && typeof eos.content === "string") return eos.content;
  return undefined;
}

function checkId(id: unknown, where: string, source: string): number {
  if (typeof id !== "number" || !Number.isInteger(id) || id < 0 || id >= MAX_VOCAB) {
    throw new Error(`${source}: bad token id ${JSON.stringify(id)} in ${where}`);
  }
  return id;
}

/**
 * Loads a tokenizer.json (a path to the file, to a folder holding it, or the parsed object).
 * Vocabulary size is the largest id + 1; ids with no token are Unused with no bytes. When a path
 * is given and a tokenizer_config.json sits beside it, its eos_token ends generation too.
 */
export function loadTokenizerJson(pathOrObject: string | object, opts: TokenizerJsonOptions = {}): VocabularyData {
  let json: unknown;
  let source: string;
  let eosPiece: string | undefined;
  if (typeof pathOrObject === "string") {
    let file = pathOrObject;
    if (existsSync(file) && statSync(file).isDirectory()) {
      file = path.join(file, "tokenizer.json");
      if (!existsSync(file)) throw new Error(`no tokenizer.json in folder ${pathOrObject}`);
    }
    json = readJson(file, "tokenizer.json");
    source = `tokenizer.json ${file}`;
    eosPiece = configEosPiece(path.dirname(file));
  } else if (isObject(pathOrObject)) {
    json = pathOrObject;
    source = "tokenizer.json object";
  } else {
    throw new TypeError("loadTokenizerJson expects a path to tokenizer.json, its folder, or its parsed object");
  }

  const model = isObject(json) ? json.model : undefined;
  if (!isObject(json) || !isObject(model) || model.vocab === undefined) {
    throw new Error(`${source} does not look like a Hugging Face tokenizer.json (no model.vocab)`);
  }
  // Old BPE files omit model.type.
  const type = typeof model.type === "string" ? model.type : Array.isArray(model.merges) ? "BPE" : "";

  // Parallel arrays, not a Map: this runs over 150k+ entries and must stay fast.
  let vocabPieces: string[];
  let vocabIds: Int32Array;
  if (type === "BPE" || type === "WordLevel") {
    const vocab = model.vocab;
    if (!isObject(vocab)) throw new Error(`${source}: model.vocab of a ${type} model must be an object of piece → id`);
    vocabPieces = Object.keys(vocab);
    vocabIds = new Int32Array(vocabPieces.length);
    for (let i = 0; i < vocabPieces.length; i++) {
      const id = vocab[vocabPieces[i]!];
      vocabIds[i] =
        typeof id === "number" && Number.isInteger(id) && id >= 0 && id < MAX_VOCAB
          ? id
          : checkId(id, `model.vocab[${JSON.stringify(vocabPieces[i])}]`, source);
    }
  } else if (type === "Unigram") {
    const vocab = model.vocab;
    if (!Array.isArray(vocab))
      throw new Error(`${source}: model.vocab of a Unigram model must be an array of [piece, score]`);
    if (vocab.length > MAX_VOCAB)
      throw new Error(`${source}: model.vocab has ${vocab.length} entries, more than any real vocabulary`);
    vocabPieces = vocab.map((entry: unknown, id) => {
      const piece = Array.isArray(entry) ? entry[0] : undefined;
      if (typeof piece !== "string") throw new Error(`${source}: model.vocab[${id}] is not a [piece, score] pair`);
      return piece;
    });
    vocabIds = Int32Array.from(vocabPieces.keys());
  } else {
    throw new Error(
      `${source}: unsupported tokenizer model type "${type || String(model.type)}" (supported: BPE, Unigram, WordLevel)`,
    );
  }

  // Added tokens: special ones (or ones that look special) are control, the rest user-defined.
  const added = new Map<number, { content: string; control: boolean }>();
  const addedList = json.added_tokens ?? [];
  if (!Array.isArray(addedList)) throw new Error(`${source}: added_tokens is not an array`);
  for (const [i, t] of addedList.entries()) {
    if (!isObject(t) || typeof t.content !== "string") throw new Error(`${source}: added_tokens[${i}] has no content`);
    const id = checkId(t.id, `added_tokens[${i}]`, source);
    added.set(id, { content: t.content, control: t.special === true || looksSpecial(t.content) });
  }

  let n = 0;
  for (const id of vocabIds) if (id >= n) n = id + 1;
  for (const id of added.keys()) if (id >= n) n = id + 1;
  if (n === 0) throw new Error(`${source}: the vocabulary is empty`);

  const byteLevel =
    hasComponent(json.decoder, (c) => c.type === "ByteLevel") ||
    (!isObject(json.decoder) && hasComponent(json.pre_tokenizer, (c) => c.type === "ByteLevel"));
  const metaspace =
    hasComponent(json.decoder, (c) => c.type === "Metaspace") ||
    hasComponent(json.decoder, (c) => c.type === "Replace" && isObject(c.pattern) && c.pattern.String === "\u2581");
  const byteFallback = model.byte_fallback === true || hasComponent(json.decoder, (c) => c.type === "ByteFallback");
  const textMode: TextMode = byteLevel ? "byteLevel" : metaspace ? "spm" : "raw";

  // BPE names its unknown token; Unigram gives its id.
  const unk = typeof model.unk_token === "string" ? model.unk_token : undefined;
  const unkId = typeof model.unk_id === "number" ? model.unk_id : -1;
  // Gaps keep piece "" and attr Undefined (→ Unused).
  const pieces = new Array<string>(n).fill("");
  const attrs = new Uint8Array(n);
  for (let i = 0; i < vocabPieces.length; i++) {
    const id = vocabIds[i]!;
    const piece = vocabPieces[i]!;
    pieces[id] = piece;
    attrs[id] =
      piece === unk || id === unkId
        ? Attr.Unknown
        : byteFallback && piece.startsWith("<0x") && byteTokenValue(piece) >= 0
          ? Attr.Byte
          : Attr.Normal;
  }
  for (const [id, a] of added) {
    // convert_hf_to_gguf pre-normalizes user-defined spaces; llama.cpp renders them verbatim.
    pieces[id] = a.control ? a.content : a.content.replaceAll("\u2581", " ");
    attrs[id] = a.control ? Attr.Control : Attr.UserDefined;
  }

  const specialIds: SpecialIds = {};
  if (eosPiece !== undefined) {
    const id = pieces.indexOf(eosPiece);
    if (id >= 0) specialIds.eos = id;
  }

  const vocab: RawVocabulary = { pieces, attrs, textMode, specialIds, source };
  if (opts.eogPieces) vocab.extraEogPieces = opts.eogPieces;
  return finishVocabulary(vocab);
}
