// Shared by the tokenizer.json and GGUF loaders: turns token pieces plus per-token attributes into
// VocabularyData, classifying tokens the way llama.cpp's llama_vocab::load (src/llama-vocab.cpp,
// release v0.4.0 bundled with node-llama-cpp 3.21.1) does, so that every vocabulary source agrees
// with what llama.cpp itself will stop on and render.

import { TokenKind, type VocabularyData } from "./types.js";

/** Token attributes, as bit flags (mirrors llama.cpp's LLAMA_TOKEN_ATTR_* subset we need). */
export const Attr = {
  Undefined: 0,
  Unknown: 1 << 0,
  Unused: 1 << 1,
  Normal: 1 << 2,
  Control: 1 << 3,
  UserDefined: 1 << 4,
  Byte: 1 << 5,
} as const;

/** How a Normal token's piece spells its bytes. */
export type TextMode =
  /** GPT-2 byte-level BPE: every byte is a printable code point. */
  | "byteLevel"
  /** SentencePiece: `▁` is a space; byte tokens are `<0xNN>`. */
  | "spm"
  /** The piece is the text. */
  | "raw";

/** Ids a source names explicitly; a missing one is looked up by text, as llama.cpp does. */
export interface SpecialIds {
  eos?: number;
  eot?: number;
  eom?: number;
  fimPre?: number;
  fimSuf?: number;
  fimMid?: number;
  fimPad?: number;
  fimRep?: number;
  fimSep?: number;
}

export interface RawVocabulary {
  /** Piece per id; "" for ids with no token. */
  pieces: string[];
  /** Exact bytes of a piece where the source has them (GGUF strings need not be valid UTF-8). */
  rawPiece?: (id: number) => Uint8Array | undefined;
  /** Attr flags per id. */
  attrs: Uint8Array;
  textMode: TextMode;
  specialIds: SpecialIds;
  /** Further pieces the caller wants treated as end of generation. */
  extraEogPieces?: readonly string[];
  source: string;
}

// ---- text lists, copied in meaning from llama-vocab.cpp (keep in sync when llama.cpp moves) ----

// Texts llama.cpp takes as the EOT / EOM / FIM tokens when the metadata names none; a match is
// forced to control even when the file says otherwise.
const EOT_TEXTS = [
  "<|eot_id|>",
  "<|im_end|>",
  "<|end|>",
  "<end_of_turn>",
  "<|endoftext|>",
  "<|end_of_text|>",
  "<EOT>",
  "_<EOT>",
  "[EOT]",
  "<｜end▁of▁sentence｜>",
  "<end_of_utterance>",
];
const EOM_TEXTS = ["<|eom_id|>"];
const FIM_PRE_TEXTS = [
  "<|fim_prefix|>",
  "<fim-prefix>",
  "<fim_prefix>",
  "<｜fim▁begin｜>",
  "<PRE>",
  "▁<PRE>",
  "<|code_prefix|>",
  "<|prefix|>",
];
const FIM_SUF_TEXTS = [
  "<|fim_suffix|>",
  "<fim-suffix>",
  "<fim_suffix>",
  "<｜fim▁hole｜>",
  "<SUF>",
  "▁<SUF>",
  "<|code_suffix|>",
  "<|suffix|>",
];
const FIM_MID_TEXTS = [
  "<|fim_middle|>",
  "<fim-middle>",
  "<fim_middle>",
  "<｜fim▁end｜>",
  "<MID>",
  "▁<MID>",
  "<|code_middle|>",
  "<|middle|>",
];
const FIM_PAD_TEXTS = ["<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"];
const FIM_REP_TEXTS = ["<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"];
const FIM_SEP_TEXTS = ["<|file_sep|>"];

/**
 * Pieces that end generation wherever they occur (llama.cpp's EOG list). `<|end|>` is on it but
 * dropped again for gpt-oss/solar-open (see below); `</s>` likewise for gemma4. The FIM pad /
 * repo / file-separator tokens and the eos/eot/eom ids are added on top, as llama.cpp does —
 * e.g. Qwen's `<|fim_pad|>`, `<|repo_name|>`, `<|file_sep|>` stop llama.cpp, so they must only be
 * allowed where a grammar may end.
 */
export const EOG_PIECES: readonly string[] = [
  "<|eot_id|>",
  "<|im_end|>",
  "<|end|>",
  "<|return|>",
  "<|call|>",
  "<|flush|>",
  "<|calls|>",
  "<end_of_turn>",
  "<|endoftext|>",
  "</s>",
  "<|eom_id|>",
  "<EOT>",
  "_<EOT>",
  "[EOT]",
  "[EOS]",
  "<|end_of_text|>",
  "<end_of_utterance>",
  "<eos>",
  "<turn|>",
  "<|tool_response>",
  "<｜end▁of▁sentence｜>",
  "[e~[",
];

// llama.cpp renders these gpt-oss markers as plain text (user-defined) so its chat parser sees them.
const HARMONY_TEXT_MARKERS = ["<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"];

/**
 * convert_hf_to_gguf's `does_token_look_special`: added tokens a model forgot to mark special that
 * the converter makes control tokens anyway. Used for tokenizer.json so it agrees with GGUFs.
 */
export function looksSpecial(text: string): boolean {
  return (
    text === "<pad>" ||
    text === "<mask>" ||
    text === "<2mass>" ||
    text === "[@BOS@]" ||
    (text.startsWith("<|") && text.endsWith("|>")) ||
    (text.startsWith("<｜") && text.endsWith("｜>")) ||
    (text.startsWith("<unused") && text.endsWith(">"))
  );
}

// ---- byte-level (GPT-2) table ----

// Code point → byte; -1 where a code point is not part of the table. All table code points are < 324.
const BYTE_OF_CODEPOINT: Int16Array = (() => {
  const table = new Int16Array(324).fill(-1);
  let next = 256;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    table[printable ? b : next++] = b;
  }
  return table;
})();

const CODEPOINT_OF_BYTE: Uint16Array = (() => {
  const out = new Uint16Array(256);
  BYTE_OF_CODEPOINT.forEach((b, cp) => {
    if (b >= 0) out[b] = cp;
  });
  return out;
})();

/** Byte-level piece for some bytes (the inverse of decoding; for tests and lookups). */
export function byteLevelPiece(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(CODEPOINT_OF_BYTE[b]!);
  return s;
}

const BYTE_TOKEN = /^<0x([0-9A-Fa-f]{2})>$/;

/** The byte a `<0xNN>` piece stands for, or -1. */
export function byteTokenValue(piece: string): number {
  const m = BYTE_TOKEN.exec(piece);
  return m ? parseInt(m[1]!, 16) : -1;
}

// ---- building the byte table ----

/** Appends token byte strings into one growing buffer; views are cut once it is final. */
class ByteArena {
  private buf = new Uint8Array(1 << 20);
  private len = 0;
  readonly ends: Uint32Array;
  constructor(n: number) {
    this.ends = new Uint32Array(n);
  }
  private reserve(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + extra) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
  /** UTF-8 of s; with spmSpace, `▁` becomes a space. Hand-rolled: encodeInto needs a view per call. */
  pushString(s: string, spmSpace = false): void {
    this.reserve(s.length * 3);
    const buf = this.buf;
    let o = this.len;
    for (let i = 0; i < s.length; i++) {
      let c = s.charCodeAt(i);
      if (c < 0x80) {
        buf[o++] = c;
      } else if (c < 0x800) {
        buf[o++] = 0xc0 | (c >> 6);
        buf[o++] = 0x80 | (c & 0x3f);
      } else if (c >= 0xd800 && c <= 0xdfff) {
        const d = s.charCodeAt(i + 1);
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
          buf[o++] = 0xf0 | (c >> 18);
          buf[o++] = 0x80 | ((c >> 12) & 0x3f);
          buf[o++] = 0x80 | ((c >> 6) & 0x3f);
          buf[o++] = 0x80 | (c & 0x3f);
        } else {
          // A lone surrogate: U+FFFD, as TextEncoder writes it.
          buf[o++] = 0xef;
          buf[o++] = 0xbf;
          buf[o++] = 0xbd;
        }
      } else if (spmSpace && c === 0x2581) {
        buf[o++] = 0x20;
      } else {
        buf[o++] = 0xe0 | (c >> 12);
        buf[o++] = 0x80 | ((c >> 6) & 0x3f);
        buf[o++] = 0x80 | (c & 0x3f);
      }
    }
    this.len = o;
  }
  pushBytes(b: Uint8Array): void {
    this.reserve(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }
  pushByte(b: number): void {
    this.reserve(1);
    this.buf[this.len++] = b;
  }
  /** Byte-level decode; false (nothing written) if some code point is outside the table. */
  pushByteLevel(piece: string): boolean {
    this.reserve(piece.length);
    const start = this.len;
    for (let i = 0; i < piece.length; i++) {
      const cp = piece.charCodeAt(i);
      const b = cp < 324 ? BYTE_OF_CODEPOINT[cp]! : -1;
      if (b < 0) {
        this.len = start;
        return false;
      }
      this.buf[this.len++] = b;
    }
    return true;
  }
  end(id: number): void {
    this.ends[id] = this.len;
  }
  views(): Uint8Array[] {
    const data = this.buf.slice(0, this.len);
    const out = new Array<Uint8Array>(this.ends.length);
    let start = 0;
    for (let i = 0; i < this.ends.length; i++) {
      const end = this.ends[i]!;
      out[i] = data.subarray(start, end);
      start = end;
    }
    return out;
  }
}

// ---- classification ----

const DETECT: Array<[keyof SpecialIds, readonly string[]]> = [
  ["eot", EOT_TEXTS],
  ["eom", EOM_TEXTS],
  ["fimPre", FIM_PRE_TEXTS],
  ["fimSuf", FIM_SUF_TEXTS],
  ["fimMid", FIM_MID_TEXTS],
  ["fimPad", FIM_PAD_TEXTS],
  ["fimRep", FIM_REP_TEXTS],
  ["fimSep", FIM_SEP_TEXTS],
];
// Every text any rule looks at, so one pass over the vocabulary finds all candidates.
const WATCHED = new Set<string>([...DETECT.flatMap(([, t]) => t), ...EOG_PIECES, ...HARMONY_TEXT_MARKERS]);

function validId(id: number | undefined, n: number): id is number {
  return id !== undefined && Number.isInteger(id) && id >= 0 && id < n;
}

/** Applies llama.cpp's token classification and decodes every token's bytes. */
export function finishVocabulary(raw: RawVocabulary): VocabularyData {
  const { pieces, attrs, textMode, source } = raw;
  const n = pieces.length;
  const ids = { ...raw.specialIds };
  for (const key of Object.keys(ids) as Array<keyof SpecialIds>) {
    if (!validId(ids[key], n)) delete ids[key];
  }

  // One pass: control tokens named "unused…" are unused (Gemma's <unused12>); collect watched texts.
  const watched: number[] = [];
  for (let id = 0; id < n; id++) {
    const piece = pieces[id]!;
    if (attrs[id]! & Attr.Control && piece.includes("unused")) attrs[id] = attrs[id]! | Attr.Unused;
    if (WATCHED.has(piece)) watched.push(id);
  }

  // Auto-detect EOT/EOM/FIM by text where the source named none; a detected token becomes control.
  // llama.cpp walks an unordered_map, so which of several matches wins is unspecified; lowest id here.
  for (const [key, texts] of DETECT) {
    if (ids[key] !== undefined) continue;
    const id = watched.find((w) => texts.includes(pieces[w]!));
    if (id !== undefined) {
      ids[key] = id;
      attrs[id] = attrs[id]! | Attr.Control;
    }
  }

  const eog = new Set<number>();
  for (const id of [ids.fimPad, ids.fimRep, ids.fimSep]) if (id !== undefined) eog.add(id);
  for (const id of watched) {
    if (EOG_PIECES.includes(pieces[id]!)) {
      eog.add(id);
      attrs[id] = attrs[id]! | Attr.Control;
    }
  }
  for (const id of watched) if (HARMONY_TEXT_MARKERS.includes(pieces[id]!)) attrs[id] = Attr.UserDefined;
  for (const id of [ids.eos, ids.eot, ids.eom]) if (id !== undefined) eog.add(id);

  // gpt-oss / solar-open: `<|end|>` closes a message, not the generation.
  const eogByText = new Map<string, number>();
  for (const id of eog) eogByText.set(pieces[id]!, id);
  const endId = eogByText.get("<|end|>");
  const hasCall = eogByText.has("<|call|>") || eogByText.has("<|calls|>");
  if (endId !== undefined && hasCall && (eogByText.has("<|return|>") || eogByText.has("<|flush|>"))) {
    eog.delete(endId);
    attrs[endId] = Attr.UserDefined;
  }
  // gemma4: `</s>` is ordinary text there.
  const sId = eogByText.get("</s>");
  if (sId !== undefined && eogByText.has("<|tool_response>")) {
    eog.delete(sId);
    attrs[sId] = Attr.Normal;
  }

  if (raw.extraEogPieces?.length) {
    const extra = new Set(raw.extraEogPieces);
    for (let id = 0; id < n; id++) if (extra.has(pieces[id]!)) eog.add(id);
  }

  // Bytes are what llama.cpp's token_to_piece(special = true) renders.
  const kinds = new Uint8Array(n);
  const addedTextIds: number[] = [];
  const arena = new ByteArena(n);
  const rawPiece = raw.rawPiece;
  for (let id = 0; id < n; id++) {
    const attr = attrs[id]!;
    const piece = pieces[id]!;
    let verbatim = false;
    if (attr & (Attr.Control | Attr.Unknown | Attr.UserDefined)) {
      verbatim = true;
    } else if (attr & Attr.Normal) {
      if (textMode === "byteLevel") {
        // llama.cpp writes "[UNK_BYTE_…]" for code points outside the table; the piece's own UTF-8 is more useful.
        verbatim = !arena.pushByteLevel(piece);
      } else if (textMode === "spm") {
        arena.pushString(piece, true);
      } else {
        verbatim = true;
      }
    } else if (attr & Attr.Byte) {
      const b = byteTokenValue(piece);
      if (b >= 0) arena.pushByte(b);
      else verbatim = true;
    }
    if (verbatim) {
      const exact = rawPiece?.(id);
      if (exact) arena.pushBytes(exact);
      else arena.pushString(piece);
    }
    arena.end(id);

    if (eog.has(id)) kinds[id] = TokenKind.EndOfGeneration;
    // Undefined covers ids with no token at all (gaps) and GGUF type 0: nothing renders them.
    else if (attr & Attr.Unused || attr === Attr.Undefined) kinds[id] = TokenKind.Unused;
    else if (attr & (Attr.Control | Attr.Unknown)) kinds[id] = TokenKind.Special;
    else {
      kinds[id] = TokenKind.Normal;
      if (attr & Attr.UserDefined) addedTextIds.push(id);
    }
  }

  return { tokenBytes: arena.views(), kinds, pieces, source, addedTextIds };
}
