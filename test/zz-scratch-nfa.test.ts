import { it } from "vitest";
import { jsonSchemaToIR } from "../src/grammar/json-schema.js";
import type { GrammarNode } from "../src/grammar/ir.js";
import { ACCEPTANCE, PROPERTY_SCHEMAS } from "./json-schema-cases.js";

type BR = [number, number];
function encode(cp: number): number[] {
  if (cp < 0x80) return [cp];
  if (cp < 0x800) return [0xc0 | (cp >> 6), 0x80 | (cp & 0x3f)];
  if (cp < 0x10000) return [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
  return [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
}
function encodeRange(lo: number, hi: number, out: BR[][]): void {
  if (lo > hi) return; if (hi > 0x10ffff) hi = 0x10ffff; if (lo > 0x10ffff) return;
  if (lo <= 0xdfff && hi >= 0xd800) { if (lo < 0xd800) encodeRange(lo, 0xd7ff, out); if (hi > 0xdfff) encodeRange(0xe000, hi, out); return; }
  for (const m of [0x7f, 0x7ff, 0xffff]) if (lo <= m && hi > m) { encodeRange(lo, m, out); encodeRange(m + 1, hi, out); return; }
  if (hi <= 0x7f) { out.push([[lo, hi]]); return; }
  for (let i = 1; i < 4; i++) {
    const m = (1 << (6 * i)) - 1;
    if ((lo & ~m) !== (hi & ~m)) {
      if ((lo & m) !== 0) { encodeRange(lo, lo | m, out); encodeRange((lo | m) + 1, hi, out); return; }
      if ((hi & m) !== m) { encodeRange(lo, (hi & ~m) - 1, out); encodeRange(hi & ~m, hi, out); return; }
    }
  }
  const a = encode(lo), b = encode(hi);
  out.push(a.map((x, k) => [x, b[k]!]));
}
function ccSize(ranges: Array<[number, number]>, negated?: boolean): number {
  let rs = [...ranges].sort((x, y) => x[0] - y[0]);
  const merged: Array<[number, number]> = [];
  for (const r of rs) { const l = merged[merged.length - 1]; if (l && r[0] <= l[1] + 1) l[1] = Math.max(l[1], r[1]); else merged.push([...r]); }
  rs = merged;
  if (negated) { const c: Array<[number, number]> = []; let next = 0; for (const x of rs) { if (x[0] > next) c.push([next, x[0] - 1]); next = x[1] + 1; } if (next <= 0x10ffff) c.push([next, 0x10ffff]); rs = c; }
  const seqs: BR[][] = []; for (const r of rs) encodeRange(r[0], r[1], seqs);
  const tails = new Set<string>(); let n = 2;
  for (const s of seqs) for (let k = s.length - 1; k >= 1; k--) { const key = JSON.stringify(s.slice(k)); if (tails.has(key)) break; tails.add(key); n++; }
  return n;
}
export function nfaSize(g: { root: GrammarNode; rules?: Record<string, GrammarNode> }, maxDepth = 8, cap = 5e7): number {
  const stack: string[] = [];
  const memo = new Map<GrammarNode, number>();
  const size = (n: GrammarNode): number => {
    switch (n.type) {
      case "literal": return 1 + Buffer.byteLength(n.text);
      case "charClass": { const m = memo.get(n); if (m !== undefined) return m; const v = ccSize(n.ranges, n.negated); memo.set(n, v); return v; }
      case "seq": return 1 + n.items.reduce((a, i) => a + size(i), 0);
      case "alt": return 2 + n.items.reduce((a, i) => a + size(i), 0);
      case "repeat": { const s = size(n.item); return 1 + n.min * s + (n.max === null ? 1 + s : 1 + (n.max - n.min) * s); }
      case "perm": {
        const k = n.items.length; const sizes = n.items.map((i) => size(i.node)); const sep = n.separator ? size(n.separator) : 0;
        let total = 2 + (2 ** k - 1);
        for (let s = 0; s < 2 ** k; s++) for (let i = 0; i < k; i++) if (!(s & (1 << i))) total += sizes[i]! + (s ? sep : 0);
        return total;
      }
      case "ref": {
        const depth = stack.filter((x) => x === n.name).length;
        if (depth > maxDepth) return 2;
        stack.push(n.name); const v = size(g.rules![n.name]!); stack.pop(); return Math.min(v, cap);
      }
      default: throw new Error(n.type);
    }
  };
  return size(g.root);
}
it("sizes", () => {
  for (const c of [...ACCEPTANCE, ...PROPERTY_SCHEMAS]) {
    const ir = jsonSchemaToIR(c.schema, c.options);
    console.log(String(nfaSize(ir)).padStart(12), c.name);
  }
  for (const ws of ["compact", "single", "any"] as const) for (let d = 0; d <= 7; d++) console.log("free value", ws, d, nfaSize(jsonSchemaToIR(true, { whitespace: ws, maxFreeNesting: d })));
  console.log("string", nfaSize(jsonSchemaToIR({type:"string"})), "number", nfaSize(jsonSchemaToIR({type:"number"})), "int", nfaSize(jsonSchemaToIR({type:"integer"})));
});
