// GGUF v3 writer: typed metadata and F32 tensors, little-endian, data aligned as the format asks
// (ggml/docs/gguf.md). Knows the file format only, nothing about any model architecture.
import { closeSync, openSync, writeSync } from "node:fs";

export type GgufValue =
  | { type: "u32"; value: number }
  | { type: "i32"; value: number }
  | { type: "f32"; value: number }
  | { type: "bool"; value: boolean }
  | { type: "string"; value: string }
  | { type: "u64"; value: bigint }
  | { type: "string[]"; value: string[] }
  | { type: "i32[]"; value: ArrayLike<number> };

export interface GgufTensor {
  name: string;
  /** Dimensions innermost first (ggml's ne0, ne1, …). */
  shape: number[];
  data: Float32Array;
}

const ALIGNMENT = 32;
const TYPE = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9, u64: 10 } as const;
const GGML_F32 = 0;

/** Little-endian values appended to one growing buffer (metadata holds ~10^5 strings). */
class Bytes {
  private buf = Buffer.alloc(1 << 20);
  length = 0;
  private room(n: number): number {
    if (this.length + n > this.buf.length) {
      const bigger = Buffer.alloc(Math.max(this.buf.length * 2, this.length + n));
      this.buf.copy(bigger, 0, 0, this.length);
      this.buf = bigger;
    }
    const at = this.length;
    this.length += n;
    return at;
  }
  // room() may replace the buffer: always take the offset before touching this.buf.
  push(b: Buffer): void {
    const at = this.room(b.length);
    b.copy(this.buf, at);
  }
  u32(v: number): void {
    const at = this.room(4);
    this.buf.writeUInt32LE(v, at);
  }
  i32(v: number): void {
    const at = this.room(4);
    this.buf.writeInt32LE(v, at);
  }
  u64(v: bigint | number): void {
    const at = this.room(8);
    this.buf.writeBigUInt64LE(BigInt(v), at);
  }
  f32(v: number): void {
    const at = this.room(4);
    this.buf.writeFloatLE(v, at);
  }
  str(s: string): void {
    const n = Buffer.byteLength(s, "utf8");
    this.u64(n);
    const at = this.room(n);
    this.buf.write(s, at, "utf8");
  }
  pad(to: number): void {
    const r = this.length % to;
    if (r) this.room(to - r);
  }
  concat(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

function writeValue(out: Bytes, key: string, v: GgufValue): void {
  switch (v.type) {
    case "u32":
      out.u32(TYPE.u32);
      out.u32(v.value);
      return;
    case "i32":
      out.u32(TYPE.i32);
      out.i32(v.value);
      return;
    case "f32":
      out.u32(TYPE.f32);
      out.f32(v.value);
      return;
    case "bool":
      out.u32(TYPE.bool);
      out.push(Buffer.of(v.value ? 1 : 0));
      return;
    case "string":
      out.u32(TYPE.string);
      out.str(v.value);
      return;
    case "u64":
      out.u32(TYPE.u64);
      out.u64(v.value);
      return;
    case "string[]":
      out.u32(TYPE.array);
      out.u32(TYPE.string);
      out.u64(v.value.length);
      for (const s of v.value) out.str(s);
      return;
    case "i32[]": {
      out.u32(TYPE.array);
      out.u32(TYPE.i32);
      out.u64(v.value.length);
      const b = Buffer.alloc(4 * v.value.length);
      for (let i = 0; i < v.value.length; i++) b.writeInt32LE(v.value[i]!, 4 * i);
      out.push(b);
      return;
    }
  }
  throw new TypeError(`GGUF metadata "${key}": unsupported value type ${(v as { type: unknown }).type}`);
}

/** Writes a GGUF file; returns its size in bytes. */
export function writeGguf(path: string, metadata: Record<string, GgufValue>, tensors: GgufTensor[]): number {
  const head = new Bytes();
  head.push(Buffer.from("GGUF", "ascii"));
  head.u32(3);
  head.u64(tensors.length);
  head.u64(Object.keys(metadata).length);
  for (const [k, v] of Object.entries(metadata)) {
    head.str(k);
    writeValue(head, k, v);
  }
  let offset = 0;
  for (const t of tensors) {
    const n = t.shape.reduce((a, b) => a * b, 1);
    if (n !== t.data.length)
      throw new RangeError(`tensor ${t.name}: shape ${t.shape.join("x")} holds ${n} values, data has ${t.data.length}`);
    head.str(t.name);
    head.u32(t.shape.length);
    for (const d of t.shape) head.u64(d);
    head.u32(GGML_F32);
    head.u64(offset);
    offset += Math.ceil((4 * n) / ALIGNMENT) * ALIGNMENT;
  }
  head.pad(ALIGNMENT);
  const fd = openSync(path, "w");
  try {
    let size = writeSync(fd, head.concat());
    for (const t of tensors) {
      const bytes = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
      size += writeSync(fd, bytes);
      const r = bytes.length % ALIGNMENT;
      if (r) size += writeSync(fd, Buffer.alloc(ALIGNMENT - r));
    }
    return size;
  } finally {
    closeSync(fd);
  }
}
