// One renderer for the property tests of the JSON-schema lowering: writes a value as a text the
// grammar must accept whenever the value is valid, in any syntax the lowering has (JSON, Python
// literals). The syntax supplies its spellings; the schema decides where only the canonical one
// will do. Every random choice comes from one seed, so a fast-check case is one text.
import type { JsonSchemaOptions } from "../../src/grammar/ir.js";

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type S = Record<string, unknown>;
const isObj = (x: unknown): x is S => typeof x === "object" && x !== null && !Array.isArray(x);
const own = (o: object, k: string) => Object.hasOwn(o, k);

/** A random integer in [0, n). */
export type Rng = (n: number) => number;
export type Whitespace = NonNullable<JsonSchemaOptions["whitespace"]>;

/** A tiny PRNG so one fast-check integer drives every serialization choice. */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return (n: number): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
}

/** s itself, or what its local `$ref` ("#/$defs/x") points to in root. */
export function resolveRef(root: unknown, s: unknown): unknown {
  if (isObj(s) && typeof s.$ref === "string") {
    let cur: unknown = root;
    for (const seg of s.$ref.slice(2).split("/").filter(Boolean)) cur = (cur as S)[seg];
    return cur;
  }
  return s;
}

/** The pieces of one syntax the renderer needs; containers, separators and whitespace are shared. */
export interface ValueSyntax {
  /** A string literal: `canonical` where the grammar fixes the spelling (enum values, declared keys), else random escapes. */
  string(x: string, canonical: boolean, r: Rng): string;
  /** A number; `anyNumber` when the schema allows non-integers (integers must stay integer-spelled). */
  number(x: number, anyNumber: boolean, r: Rng): string;
  scalar(x: null | boolean): string;
  /** An enum/const value, in the one spelling the grammar has for it. */
  fixed(x: Json, r: Rng): string;
  /** A value under anyOf/oneOf, which the grammar spells canonically as a whole. */
  whole(x: Json, mode: Whitespace): string;
  /** In "single" mode a space follows "," and ":" unless a roll of r(spaceOdds) is 0. */
  spaceOdds: number;
}

/**
 * v in `syntax` and the whitespace style `mode`, guided by the schema root: enum/const values and
 * declared property names canonical, undeclared keys as one contiguous run among the declared
 * ones, integers without exponent; elsewhere random key order, string escapes and number forms.
 */
export function renderForSchema(v: Json, root: unknown, mode: Whitespace, seed: number, syntax: ValueSyntax): string {
  const r = rng(seed);
  const gap = () =>
    mode === "any" ? Array.from({ length: r(3) === 0 ? r(33) : r(3) }, () => " \t\n\r"[r(4)]).join("") : "";
  const after = () => (mode === "single" ? (r(syntax.spaceOdds) ? " " : "") : "");
  const str = (x: string, canonical: boolean) => syntax.string(x, canonical, r);
  const container = (open: string, parts: string[], close: string) =>
    parts.length === 0
      ? open + gap() + close
      : open + parts.map((p) => gap() + p).join(gap() + "," + after()) + gap() + close;
  const member = (k: string, val: string) => k + gap() + ":" + after() + val;
  const shuffle = <T>(xs: T[]): T[] => {
    const a = [...xs];
    for (let i = a.length - 1; i > 0; i--) {
      const j = r(i + 1);
      [a[i], a[j]] = [a[j]!, a[i]!];
    }
    return a;
  };

  const free = (x: Json): string => {
    if (typeof x === "string") return str(x, false);
    if (typeof x === "number") return syntax.number(x, true, r);
    if (Array.isArray(x)) return container("[", x.map(free), "]");
    if (isObj(x))
      return container(
        "{",
        shuffle(Object.keys(x)).map((k) => member(str(k, false), free(x[k] as Json))),
        "}",
      );
    return syntax.scalar(x);
  };
  const go = (x: Json, s: unknown): string => {
    s = resolveRef(root, s);
    if (!isObj(s)) return free(x);
    if ("enum" in s || "const" in s) return syntax.fixed(x, r);
    if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) return syntax.whole(x, mode);
    if (Array.isArray(s.allOf) && s.allOf.length === 1) return go(x, s.allOf[0]);
    const types = (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []) as string[];
    if (typeof x === "string") return str(x, false);
    if (typeof x === "number") {
      const anyNumber = types.length === 0 || types.includes("number");
      // a number bounded other than at 0 is written without exponent (the grammar's plain decimals)
      if (
        anyNumber &&
        ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"].some(
          (k) => typeof s[k] === "number" && s[k] !== 0,
        )
      )
        return plainDecimal(x);
      return syntax.number(x, anyNumber, r);
    }
    if (Array.isArray(x)) {
      const prefix = (Array.isArray(s.prefixItems) ? s.prefixItems : []) as unknown[];
      return container(
        "[",
        x.map((e, i) => go(e, i < prefix.length ? prefix[i] : s.items)),
        "]",
      );
    }
    if (isObj(x)) {
      const props = (isObj(s.properties) ? s.properties : {}) as S;
      // required-but-undeclared names are declared members of the grammar: canonical spelling too
      const isDeclared = (k: string) => own(props, k) || (Array.isArray(s.required) && s.required.includes(k));
      const sub = (k: string) => (own(props, k) ? props[k] : s.additionalProperties);
      const declared = shuffle(Object.keys(x).filter(isDeclared)).map((k) =>
        member(str(k, true), go(x[k] as Json, sub(k))),
      );
      const extras = shuffle(Object.keys(x).filter((k) => !isDeclared(k))).map((k) =>
        member(str(k, false), go(x[k] as Json, sub(k))),
      );
      const at = r(declared.length + 1);
      return container("{", [...declared.slice(0, at), ...extras, ...declared.slice(at)], "}");
    }
    return syntax.scalar(x);
  };
  return go(v, root);
}

/** The decimal String(x) writes, without an exponent (1e-7 → 0.0000001, 1e21 → 1000000000000000000000). */
export function plainDecimal(x: number): string {
  const s = String(x);
  const m = /^(-?)([0-9]+)(?:\.([0-9]+))?e([+-][0-9]+)$/.exec(s);
  if (!m) return s;
  const digits = m[2]! + (m[3] ?? ""),
    point = m[2]!.length + Number(m[4]);
  const body =
    point <= 0
      ? `0.${"0".repeat(-point)}${digits}`
      : point >= digits.length
        ? digits + "0".repeat(point - digits.length)
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return m[1] + body;
}
