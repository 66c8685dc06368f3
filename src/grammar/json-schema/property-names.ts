// "propertyNames": the names a schema accepts, as ajv decides them (every property name of the
// instance must be valid against the schema, a name being a string), read as a regular expression
// over code points (pattern.ts's Rx). The lowering spells it as keys; the same expression decides
// which declared names may appear, so the keys a grammar writes and the names it keeps agree.
//
// Supported in the schema: true/false, "type" (a name passes only when "string" is one of its
// types), enum/const, "pattern", "minLength"/"maxLength" (not together with "pattern", as for
// strings), "$ref", "anyOf"/"oneOf" (oneOf lowered like anyOf, as everywhere), "allOf" of one
// constraining schema, annotations, and keywords of other types (which no string is checked by).
import { childPath, invalid, UnsupportedSchemaError } from "./errors.js";
import { analyze, hasOwn, isTrivial, type Obj, type Resolve } from "./keywords.js";
import { parsePattern, type Rx } from "./pattern.js";
import { ENCODABLE, inRanges, subtractPoints } from "../code-ranges.js";
import { reachable } from "../schema-limits.js";

const EMPTY: Rx = { k: "seq", items: [] };
const ANY_CHAR: Rx = { k: "set", r: ENCODABLE };
const ANY: Rx = { k: "rep", item: ANY_CHAR, min: 0, max: null };
/** Keywords that check strings: those this reading handles, and those it refuses rather than ignore. */
const STRING_KW = new Set(["pattern", "minLength", "maxLength"]);
const STRING_OTHER = ["format", "contentEncoding", "contentMediaType", "contentSchema"];

const alt = (items: Rx[]): Rx | null =>
  items.length === 0 ? null : items.length === 1 ? items[0]! : { k: "alt", items };
const text = (s: string): Rx => ({
  k: "seq",
  items: Array.from(s, (c) => ({ k: "set", r: [[c.codePointAt(0)!, c.codePointAt(0)!]] })),
});

/** The names `schema` (at `path`, its `$ref`s resolved by `resolve`) accepts; null when none. */
export function nameLanguage(schema: unknown, path: string, resolve: Resolve, depth = 0): Rx | null {
  if (schema === true) return ANY;
  if (schema === false) return null;
  if (depth > 32)
    throw new UnsupportedSchemaError(
      path,
      "propertyNames",
      '"propertyNames" that refers to itself through "$ref" is not supported; write the names\' schema without the recursion',
    );
  const info = analyze(schema, path);
  const s = info.s;
  for (const kw of STRING_OTHER)
    if (hasOwn(s, kw))
      throw new UnsupportedSchemaError(
        childPath(path, kw),
        kw,
        `"${kw}" in "propertyNames" is not supported; list the allowed names with "enum", or give them a "pattern"`,
      );
  // A name is a string: an explicit "type" without "string" leaves none; keywords of other types
  // (minimum, items, …) never check one.
  if (info.types !== null && !info.types.has("string")) return null;
  const parts: Array<Rx | null> = [];
  if (info.values !== null) {
    const rest = { ...s };
    delete rest.enum;
    delete rest.const;
    const own = nameLanguage(rest, path, resolve, depth + 1);
    const names = info.values.filter((v): v is string => typeof v === "string" && spellable(v));
    return alt(names.filter((n) => own !== null && matches(own, n)).map(text));
  }
  if (info.ref !== undefined) {
    const t = resolve(info.ref, path);
    parts.push(nameLanguage(t.schema, t.path, resolve, depth + 1));
  } else if (info.allOf) {
    const real = info.allOf.filter((x) => !isTrivial(x));
    if (real.length > 1)
      throw new UnsupportedSchemaError(
        childPath(path, "allOf"),
        "allOf",
        '"allOf" with more than one constraining schema is not supported; merge them into one schema',
      );
    const i = real.length === 0 ? 0 : info.allOf.indexOf(real[0]);
    parts.push(nameLanguage(info.allOf[i], childPath(childPath(path, "allOf"), i), resolve, depth + 1));
  } else if (info.anyOf || info.oneOf) {
    const kw = info.anyOf ? "anyOf" : "oneOf";
    const branches = (info.anyOf ?? info.oneOf)!.map((b, i) =>
      nameLanguage(b, childPath(childPath(path, kw), i), resolve, depth + 1),
    );
    parts.push(alt(branches.filter((b): b is Rx => b !== null)));
  } else {
    parts.push(stringLanguage(s, path));
  }
  const composed = ["$ref", "anyOf", "oneOf", "allOf"].find((k) => hasOwn(s, k));
  const own = [...STRING_KW].find((k) => hasOwn(s, k));
  if (composed && own)
    throw new UnsupportedSchemaError(
      childPath(path, composed),
      composed,
      `"${composed}" together with "${own}" in "propertyNames" is not supported; move "${own}" into the ${composed === "$ref" ? "referenced schema" : `"${composed}" alternatives`}`,
    );
  return parts[0] ?? null;
}

/** The strings a schema's string keywords accept (pattern, or a length range). */
function stringLanguage(s: Obj, path: string): Rx | null {
  const min = typeof s.minLength === "number" ? s.minLength : 0;
  const max = reachable(typeof s.maxLength === "number" ? s.maxLength : null);
  if (typeof s.pattern === "string") {
    if (hasOwn(s, "minLength") || hasOwn(s, "maxLength"))
      throw new UnsupportedSchemaError(
        childPath(path, "pattern"),
        "pattern",
        `"pattern" together with "${hasOwn(s, "minLength") ? "minLength" : "maxLength"}" is not supported (the grammar cannot intersect them); drop the length bound, or bound the length inside an anchored pattern, e.g. "^[a-z]{1,10}$"`,
      );
    const p = childPath(path, "pattern");
    return alt(
      parsePattern(s.pattern, p).map((a) => ({
        k: "seq",
        items: [...(a.start ? [] : [ANY]), a.rx, ...(a.end ? [] : [ANY])],
      })),
    );
  }
  if (reachable(min) === null || (max !== null && min > max)) return null;
  return min === 0 && max === null ? ANY : { k: "rep", item: ANY_CHAR, min, max };
}

/** A name the grammar can spell (no lone surrogate). */
const spellable = (name: string) =>
  !Array.from(name).some((c) => c.codePointAt(0)! >= 0xd800 && c.codePointAt(0)! <= 0xdfff);

// ---------------------------------------------------------------------------------------------
// Matching a name, and leaving names out

/** Positions of `cps` that `rx` can reach from those in `from`. */
function step(rx: Rx, from: Set<number>, cps: number[]): Set<number> {
  switch (rx.k) {
    case "set": {
      const out = new Set<number>();
      for (const p of from) if (p < cps.length && inRanges(rx.r, cps[p]!)) out.add(p + 1);
      return out;
    }
    case "seq":
      return rx.items.reduce((cur, item) => step(item, cur, cps), from);
    case "alt": {
      const out = new Set<number>();
      for (const item of rx.items) for (const p of step(item, from, cps)) out.add(p);
      return out;
    }
    case "and": {
      // from each position alone: where every item leads it
      const out = new Set<number>();
      for (const p of from) {
        const ends = rx.items.map((item) => step(item, new Set([p]), cps));
        for (const e of ends[0]!) if (ends.every((x) => x.has(e))) out.add(e);
      }
      return out;
    }
    case "rep": {
      // An item that can be empty only adds positions, one that cannot only moves past them: the
      // positions after i items settle or run out within the name's length.
      const out = new Set<number>();
      let cur = from;
      for (let i = 0; ; i++) {
        if (i >= rx.min) for (const p of cur) out.add(p);
        if ((rx.max !== null && i >= rx.max) || cur.size === 0) return out;
        const next = step(rx.item, cur, cps);
        if (next.size === cur.size && [...next].every((p) => cur.has(p))) {
          for (const p of cur) out.add(p);
          return out;
        }
        cur = next;
      }
    }
  }
}

/** Whether `name` is in the language of `rx`. */
export function matches(rx: Rx, name: string): boolean {
  const cps = Array.from(name, (c) => c.codePointAt(0)!);
  return step(rx, new Set([0]), cps).has(cps.length);
}

function nullable(rx: Rx): boolean {
  switch (rx.k) {
    case "set":
      return false;
    case "seq":
      return rx.items.every(nullable);
    case "alt":
      return rx.items.some(nullable);
    case "rep":
      return rx.min === 0 || nullable(rx.item);
    case "and":
      return rx.items.every(nullable);
  }
}

/** The non-empty strings of `rx`. */
function nonEmpty(rx: Rx): Rx | null {
  switch (rx.k) {
    case "set":
      return rx.r.length ? rx : null;
    case "seq": {
      // the first item that is not empty is the i-th: those before it are empty
      const parts: Rx[] = [];
      for (let i = 0; i < rx.items.length; i++) {
        const first = nonEmpty(rx.items[i]!);
        if (first) parts.push({ k: "seq", items: [first, ...rx.items.slice(i + 1)] });
        if (!nullable(rx.items[i]!)) break;
      }
      return alt(parts);
    }
    case "alt":
      return alt(rx.items.map(nonEmpty).filter((x): x is Rx => x !== null));
    case "and": {
      const parts = rx.items.map(nonEmpty);
      return parts.every((x): x is Rx => x !== null) ? { k: "and", items: parts } : null;
    }
    case "rep": {
      if (rx.max === 0) return null;
      const first = nonEmpty(rx.item);
      if (!first) return null;
      const more: Rx = {
        k: "rep",
        item: rx.item,
        min: Math.max(0, rx.min - 1),
        max: rx.max === null ? null : rx.max - 1,
      };
      return { k: "seq", items: [first, more] };
    }
  }
}

interface Trie {
  end: boolean;
  kids: Map<number, Trie>;
}
/** A state of the names' trie automaton: a node, or SINK once the text is a prefix of no name. */
type State = Trie | null;
const SINK = null;

/** The strings of `rx` that are none of `names`; null when none is left. */
export function withoutNames(rx: Rx, names: string[]): Rx | null {
  const root: Trie = { end: false, kids: new Map() };
  for (const name of names) {
    if (!spellable(name)) continue;
    let t = root;
    for (const c of Array.from(name, (ch) => ch.codePointAt(0)!)) {
      let k = t.kids.get(c);
      if (!k) t.kids.set(c, (k = { end: false, kids: new Map() }));
      t = k;
    }
    t.end = true;
  }
  const ends = of(rx, root);
  return alt([...ends].filter(([t]) => t === SINK || !t.end).map(([, r]) => r));
}

function add(m: Map<State, Rx>, t: State, r: Rx) {
  const had = m.get(t);
  m.set(t, had ? { k: "alt", items: [had, r] } : r);
}

/** For each state `rx` can lead `s` to, the strings of `rx` that do. */
function of(rx: Rx, s: State): Map<State, Rx> {
  const out = new Map<State, Rx>();
  if (s === SINK) {
    out.set(SINK, rx);
    return out;
  }
  switch (rx.k) {
    case "set": {
      for (const [c, kid] of s.kids) if (inRanges(rx.r, c)) out.set(kid, { k: "set", r: [[c, c]] });
      const rest = subtractPoints(rx.r, s.kids.keys());
      if (rest.length) out.set(SINK, { k: "set", r: rest });
      return out;
    }
    case "seq": {
      let cur = new Map<State, Rx>([[s, EMPTY]]);
      for (const item of rx.items) {
        const next = new Map<State, Rx>();
        for (const [m, pre] of cur) for (const [t, r] of of(item, m)) add(next, t, { k: "seq", items: [pre, r] });
        cur = next;
      }
      return cur;
    }
    case "alt":
      for (const item of rx.items) for (const [t, r] of of(item, s)) add(out, t, r);
      return out;
    case "and":
      // never read from "propertyNames", whose language has no intersection (nameLanguage)
      throw new Error("propertyNames: an intersection in a names' language");
    case "rep": {
      // Items that cannot be empty, unrolled while the text is still a prefix of a name: each one
      // goes a level down the trie or leaves it, so this ends within the longest name.
      const x = nonEmpty(rx.item);
      if (!x) return new Map([[s, EMPTY]]);
      const min = nullable(rx.item) ? 0 : rx.min;
      let cur = new Map<State, Rx>([[s, EMPTY]]);
      for (let i = 0; cur.size > 0; i++) {
        for (const [t, pre] of cur) {
          if (t === SINK) {
            const rest: Rx = { k: "rep", item: x, min: Math.max(0, min - i), max: rx.max === null ? null : rx.max - i };
            add(out, SINK, { k: "seq", items: [pre, rest] });
          } else if (i >= min) add(out, t, pre);
        }
        if (rx.max !== null && i >= rx.max) break;
        const next = new Map<State, Rx>();
        for (const [t, pre] of cur)
          if (t !== SINK) for (const [u, r] of of(x, t)) add(next, u, { k: "seq", items: [pre, r] });
        cur = next;
      }
      return out;
    }
  }
}

/**
 * The names of `names` that an object schema at `path` with names' language `language` (its
 * "propertyNames") allows; a required one it refuses leaves no object valid: an InvalidSchemaError
 * naming `path`.propertyNames.
 */
export function keptNames(names: string[], required: string[], language: Rx | null, path: string): Set<string> {
  const kept = new Set(names.filter((n) => language !== null && matches(language, n)));
  const lost = required.find((r) => language === null || !matches(language, r));
  if (lost !== undefined)
    throw invalid(
      path,
      "propertyNames",
      `"${lost}" is required but "propertyNames" does not accept it as a name, so no object can match; fix "propertyNames" or "required"`,
    );
  return kept;
}
