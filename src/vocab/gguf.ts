// GGUF metadata reader (header + key/value section only; tensor data is never read) and the
// vocabulary it describes. Format: ggml/docs/gguf.md in the llama.cpp source; little-endian.

import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { Attr, finishVocabulary, type SpecialIds, type TextMode } from "./pieces.js";
import type { VocabularyData } from "./types.js";

const enum T {
  U8 = 0,
  I8 = 1,
  U16 = 2,
  I16 = 3,
  U32 = 4,
  I32 = 5,
  F32 = 6,
  Bool = 7,
  Str = 8,
  Arr = 9,
  U64 = 10,
  I64 = 11,
  F64 = 12,
}
const FIXED_SIZE: Record<number, number> = {
  [T.U8]: 1,
  [T.I8]: 1,
  [T.U16]: 2,
  [T.I16]: 2,
  [T.U32]: 4,
  [T.I32]: 4,
  [T.F32]: 4,
  [T.Bool]: 1,
  [T.U64]: 8,
  [T.I64]: 8,
  [T.F64]: 8,
};

const CHUNK = 1 << 20;

/** Sequential little-endian reads from a file through a refilled buffer. */
class FileReader {
  private buf: Buffer = Buffer.alloc(CHUNK);
  private start = 0; // offset in buf of the next unread byte
  private end = 0; // bytes valid in buf
  private filePos = 0; // file offset of buf[end]
  readonly size: number;
  what = "header";

  constructor(
    private readonly fd: number,
    private readonly path: string,
  ) {
    this.size = fstatSync(fd).size;
  }

  get offset(): number {
    return this.filePos - (this.end - this.start);
  }

  get remaining(): number {
    return this.size - this.offset;
  }

  fail(msg: string): never {
    throw new Error(`${this.path}: ${msg} (at byte ${this.offset} while reading ${this.what})`);
  }

  /** Makes n bytes available at this.start. */
  private need(n: number): void {
    if (this.end - this.start >= n) return;
    if (n > this.remaining) this.fail(`truncated GGUF: needs ${n} more bytes, file has ${this.remaining}`);
    const have = this.end - this.start;
    if (n > this.buf.length) {
      const bigger = Buffer.alloc(Math.max(n, this.buf.length * 2));
      this.buf.copy(bigger, 0, this.start, this.end);
      this.buf = bigger;
    } else {
      this.buf.copyWithin(0, this.start, this.end);
    }
    this.start = 0;
    this.end = have;
    while (this.end < n) {
      const got = readSync(this.fd, this.buf, this.end, this.buf.length - this.end, this.filePos);
      if (got <= 0) this.fail("truncated GGUF: unexpected end of file");
      this.end += got;
      this.filePos += got;
    }
  }

  u8(): number {
    this.need(1);
    return this.buf[this.start++]!;
  }
  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32LE(this.start);
    this.start += 4;
    return v;
  }
  i32(): number {
    this.need(4);
    const v = this.buf.readInt32LE(this.start);
    this.start += 4;
    return v;
  }
  u64(): bigint {
    this.need(8);
    const v = this.buf.readBigUInt64LE(this.start);
    this.start += 8;
    return v;
  }

  /** A u64 count, bounded by what the rest of the file could hold at `minBytes` each. */
  count(minBytes: number, what: string): number {
    const v = this.u64();
    if (v > BigInt(Math.floor(this.remaining / Math.max(minBytes, 1)))) {
      this.fail(`corrupt or truncated GGUF: ${what} count ${v} cannot fit in the ${this.remaining} bytes left`);
    }
    return Number(v);
  }

  /** Copies the next n bytes into target at offset (no intermediate Buffer per string). */
  copyTo(target: Buffer, offset: number, n: number): void {
    this.need(n);
    this.buf.copy(target, offset, this.start, this.start + n);
    this.start += n;
  }

  bytes(n: number): Buffer {
    this.need(n);
    const b = this.buf.subarray(this.start, this.start + n);
    this.start += n;
    return b;
  }

  skip(n: number): void {
    if (n > this.remaining) this.fail(`truncated GGUF: needs ${n} more bytes, file has ${this.remaining}`);
    const inBuf = Math.min(n, this.end - this.start);
    this.start += inBuf;
    if (n > inBuf) {
      this.filePos += n - inBuf;
      this.start = this.end = 0;
    }
  }

  /** A string's u64 length, read as two u32s to avoid a BigInt per string. */
  strLen(): number {
    this.need(8);
    const lo = this.buf.readUInt32LE(this.start);
    const hi = this.buf.readUInt32LE(this.start + 4);
    this.start += 8;
    if (hi !== 0 || lo > this.remaining) {
      this.start -= 8;
      this.fail(
        `corrupt or truncated GGUF: string length ${hi * 2 ** 32 + lo} exceeds the ${this.remaining - 8} bytes left`,
      );
    }
    return lo;
  }

  string(): string {
    const n = this.strLen();
    this.need(n);
    const s = this.buf.toString("utf8", this.start, this.start + n);
    this.start += n;
    return s;
  }

  /** Reads one fixed-size scalar of type t. */
  scalar(t: number): number | bigint | boolean {
    const size = FIXED_SIZE[t];
    if (size === undefined) this.fail(`unknown value type ${t}`);
    this.need(size);
    const b = this.buf;
    const o = this.start;
    this.start += size;
    switch (t) {
      case T.U8:
        return b.readUInt8(o);
      case T.I8:
        return b.readInt8(o);
      case T.U16:
        return b.readUInt16LE(o);
      case T.I16:
        return b.readInt16LE(o);
      case T.U32:
        return b.readUInt32LE(o);
      case T.I32:
        return b.readInt32LE(o);
      case T.F32:
        return b.readFloatLE(o);
      case T.Bool:
        return b.readUInt8(o) !== 0;
      case T.U64:
        return narrow(b.readBigUInt64LE(o));
      case T.I64:
        return narrow(b.readBigInt64LE(o));
      default:
        return b.readDoubleLE(o);
    }
  }
}

function narrow(v: bigint): number | bigint {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

/** A string array kept as bytes: string i is data[ends[i-1] .. ends[i]). */
export interface PackedStrings {
  data: Buffer;
  ends: Uint32Array;
}

function readPackedStrings(r: FileReader, n: number): PackedStrings {
  let data = Buffer.allocUnsafe(Math.min(r.remaining, Math.max(1024, n * 16)));
  const ends = new Uint32Array(n);
  let len = 0;
  for (let i = 0; i < n; i++) {
    const k = r.strLen();
    if (len + k > data.length) {
      const bigger = Buffer.allocUnsafe(Math.max(len + k, data.length * 2));
      data.copy(bigger, 0, 0, len);
      data = bigger;
    }
    r.copyTo(data, len, k);
    len += k;
    ends[i] = len;
  }
  return { data: data.subarray(0, len), ends };
}

type ArrayCtor = { new (buf: ArrayBuffer): ArrayLike<unknown>; BYTES_PER_ELEMENT: number };
const TYPED: Record<number, ArrayCtor> = {
  [T.U8]: Uint8Array,
  [T.I8]: Int8Array,
  [T.U16]: Uint16Array,
  [T.I16]: Int16Array,
  [T.U32]: Uint32Array,
  [T.I32]: Int32Array,
  [T.F32]: Float32Array,
  [T.U64]: BigUint64Array,
  [T.I64]: BigInt64Array,
  [T.F64]: Float64Array,
};

interface ReadOptions {
  /** Keys whose value is skipped over, not decoded (e.g. 150k BPE merges). */
  skip?: (key: string) => boolean;
  /** String-array keys kept as PackedStrings instead of string[]. */
  rawStrings?: (key: string) => boolean;
}

function readValue(r: FileReader, t: number, rawStrings: boolean, depth: number): unknown {
  if (t === T.Str) return r.string();
  if (t !== T.Arr) return r.scalar(t);
  if (depth > 8) r.fail("arrays nested too deeply");
  const et = r.u32();
  if (et === T.Str) {
    const n = r.count(8, "array");
    if (rawStrings) return readPackedStrings(r, n);
    const out = new Array<string>(n);
    for (let i = 0; i < n; i++) out[i] = r.string();
    return out;
  }
  if (et === T.Arr) {
    const n = r.count(12, "array");
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) out[i] = readValue(r, T.Arr, rawStrings, depth + 1);
    return out;
  }
  const size = FIXED_SIZE[et];
  if (size === undefined) r.fail(`unknown array element type ${et}`);
  const n = r.count(size, "array");
  if (et === T.Bool) return Array.from(r.bytes(n), (b) => b !== 0);
  const Ctor = TYPED[et]!;
  // Copy into a fresh, aligned buffer (the file buffer is reused and unaligned).
  const copy = new Uint8Array(n * size);
  copy.set(r.bytes(n * size));
  return new Ctor(copy.buffer);
}

function skipValue(r: FileReader, t: number, depth: number): void {
  if (t === T.Str) {
    r.skip(r.strLen());
    return;
  }
  if (t !== T.Arr) {
    const size = FIXED_SIZE[t];
    if (size === undefined) r.fail(`unknown value type ${t}`);
    r.skip(size);
    return;
  }
  if (depth > 8) r.fail("arrays nested too deeply");
  const et = r.u32();
  const size = FIXED_SIZE[et];
  if (size !== undefined) {
    r.skip(r.count(size, "array") * size);
    return;
  }
  if (et !== T.Str && et !== T.Arr) r.fail(`unknown array element type ${et}`);
  const n = r.count(8, "array");
  for (let i = 0; i < n; i++) skipValue(r, et, depth + 1);
}

function readMetadata(path: string, opts: ReadOptions): Map<string, unknown> {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(
      code === "ENOENT" ? `GGUF file not found: ${path}` : `cannot open GGUF file ${path}: ${(err as Error).message}`,
    );
  }
  try {
    if (fstatSync(fd).isDirectory()) throw new Error(`${path} is a folder, not a GGUF file`);
    const r = new FileReader(fd, path);
    if (r.size < 8) r.fail(`not a GGUF file: only ${r.size} bytes`);
    const magic = r.bytes(4).toString("latin1");
    if (magic !== "GGUF") {
      throw new Error(`${path}: not a GGUF file (magic ${JSON.stringify(magic)}, expected "GGUF")`);
    }
    const version = r.u32();
    if (version !== 2 && version !== 3) {
      throw new Error(`${path}: unsupported GGUF version ${version} (only 2 and 3 are read)`);
    }
    r.u64(); // tensor count: tensors are not read
    const nKv = r.count(13, "key/value");
    const out = new Map<string, unknown>();
    for (let i = 0; i < nKv; i++) {
      r.what = `key ${i}`;
      const key = r.string();
      r.what = `the value of ${JSON.stringify(key)}`;
      const t = r.u32();
      if (opts.skip?.(key)) skipValue(r, t, 0);
      else out.set(key, readValue(r, t, opts.rawStrings?.(key) ?? false, 0));
    }
    return out;
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads the metadata of a GGUF file (v2/v3). Scalars come back as number / boolean / string
 * (64-bit integers as number when safe, else bigint); numeric arrays as typed arrays
 * (e.g. Int32Array), string arrays as string[], bool arrays as boolean[], nested arrays as arrays.
 */
export function readGgufMetadata(path: string): Map<string, unknown> {
  return readMetadata(path, {});
}

/**
 * The model's `general.name` (the name its converter gave it, e.g. "Qwen2.5 Coder 0.5B Instruct"),
 * read without the tokenizer's arrays; undefined when the key is absent or not a string.
 */
export function readGgufModelName(path: string): string | undefined {
  const name = readMetadata(path, { skip: (key) => key !== "general.name" }).get("general.name");
  return typeof name === "string" ? name : undefined;
}

// GGUF token types (llama.h LLAMA_TOKEN_TYPE_*) → our attribute flags.
const ATTR_OF_TYPE = [
  Attr.Undefined,
  Attr.Normal,
  Attr.Unknown,
  Attr.Control,
  Attr.UserDefined,
  Attr.Unused,
  Attr.Byte,
];

// What each tokenizer.ggml.model means for rendering, and llama.cpp's default eos when the key is absent.
const MODELS: Record<string, { mode: TextMode; eos?: number }> = {
  llama: { mode: "spm", eos: 2 },
  gpt2: { mode: "byteLevel", eos: 11 },
  bert: { mode: "spm" },
  t5: { mode: "spm", eos: 1 },
  gemma4: { mode: "spm" },
};
// BPE pre-tokenizers whose pieces are SentencePiece-style (llama.cpp sets escape_whitespaces for them).
const SPM_STYLE_BPE_PRE = new Set(["gemma4", "granite-embed-multi-311m", "sarvam-moe"]);

const ID_KEYS: Array<[keyof SpecialIds, string]> = [
  ["eos", "eos_token_id"],
  ["eot", "eot_token_id"],
  ["eom", "eom_token_id"],
  ["fimPre", "fim_pre_token_id"],
  ["fimSuf", "fim_suf_token_id"],
  ["fimMid", "fim_mid_token_id"],
  ["fimPad", "fim_pad_token_id"],
  ["fimRep", "fim_rep_token_id"],
  ["fimSep", "fim_sep_token_id"],
  // deprecated spellings of the first three FIM ids
  ["fimPre", "prefix_token_id"],
  ["fimSuf", "suffix_token_id"],
  ["fimMid", "middle_token_id"],
];

/** The vocabulary of a GGUF file, classified as llama.cpp classifies it; no llama.cpp needed. */
export function loadGgufVocabulary(path: string): VocabularyData {
  const meta = readMetadata(path, {
    // Only tokenizer.ggml.* scalars and the two per-token arrays matter; skip merges, scores, templates.
    skip: (k) =>
      !k.startsWith("tokenizer.ggml.") ||
      k === "tokenizer.ggml.merges" ||
      k === "tokenizer.ggml.scores" ||
      k === "tokenizer.ggml.precompiled_charsmap",
    rawStrings: (k) => k === "tokenizer.ggml.tokens",
  });
  const model = meta.get("tokenizer.ggml.model");
  if (model === undefined) throw new Error(`${path}: GGUF has no tokenizer.ggml.model (no vocabulary in this file)`);
  if (typeof model !== "string") throw new Error(`${path}: tokenizer.ggml.model is not a string`);
  const info = MODELS[model];
  if (!info) {
    throw new Error(
      `${path}: unsupported tokenizer.ggml.model "${model}" (supported: ${Object.keys(MODELS).join(", ")})`,
    );
  }
  const packed = meta.get("tokenizer.ggml.tokens") as PackedStrings | undefined;
  if (!packed || !(packed.ends instanceof Uint32Array) || packed.ends.length === 0) {
    throw new Error(`${path}: GGUF has no tokenizer.ggml.tokens string array`);
  }
  const { data, ends } = packed;
  const n = ends.length;
  const types = meta.get("tokenizer.ggml.token_type");
  if (types !== undefined && !(types instanceof Int32Array)) {
    throw new Error(`${path}: tokenizer.ggml.token_type is not an int32 array`);
  }
  if (types && types.length < n) {
    throw new Error(`${path}: tokenizer.ggml.token_type has ${types.length} entries for ${n} tokens`);
  }

  const pieces = new Array<string>(n);
  const attrs = new Uint8Array(n);
  let start = 0;
  for (let i = 0; i < n; i++) {
    const end = ends[i]!;
    pieces[i] = end === start ? `[EMPTY_${i}]` : data.toString("utf8", start, end); // llama.cpp's name for empty tokens
    attrs[i] = types ? (ATTR_OF_TYPE[types[i]!] ?? Attr.Undefined) : Attr.Normal;
    // Older converters padded vocabularies with user-defined "[PAD<id>]" tokens (e.g. the bundled
    // qwen2 vocab, ids 151646+). llama.cpp would print them as text; they are padding, not text.
    if (attrs[i] === Attr.UserDefined && pieces[i] === `[PAD${i}]`) attrs[i] = Attr.Unused;
    start = end;
  }
  // Exact bytes for tokens rendered verbatim: GGUF strings need not be valid UTF-8.
  const rawPiece = (id: number): Uint8Array | undefined =>
    ends[id] === (id === 0 ? 0 : ends[id - 1]) ? undefined : data.subarray(id === 0 ? 0 : ends[id - 1]!, ends[id]!);

  let mode = info.mode;
  const pre = meta.get("tokenizer.ggml.pre");
  if (model === "gpt2" && typeof pre === "string" && SPM_STYLE_BPE_PRE.has(pre)) mode = "spm";

  const specialIds: SpecialIds = {};
  if (info.eos !== undefined) specialIds.eos = info.eos;
  for (const [field, key] of ID_KEYS) {
    const v = meta.get(`tokenizer.ggml.${key}`);
    if (typeof v === "number" && Number.isInteger(v) && v >= 0 && v < n) specialIds[field] = v;
  }

  return finishVocabulary({ pieces, rawPiece, attrs, textMode: mode, specialIds, source: `GGUF ${path}` });
}
