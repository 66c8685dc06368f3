// The JSON-schema lowering itself: one schema (and the schemas it refers to) to grammar IR, with
// the semantics json-schema.ts documents, built on the JSON value rules of value-rules.ts.
import type { JsonSchemaOptions } from "../ir.js";
import type { QuoteSyntax } from "./syntax.js";
import { childPath, describe, invalid, unsupported, InvalidSchemaError, UnsupportedSchemaError } from "./errors.js";
import {
  ALL_TYPES,
  analyze,
  effectiveTypes,
  hasOwn,
  intersectTypes,
  isObj,
  isTrivial,
  num,
  NUMBER_KW,
  typeKey,
  TYPE_ORDER,
  type Info,
  type Obj,
  type TypeName,
} from "./keywords.js";
import { checkValue } from "./check.js";
import { asRun, parsePattern, patternRepetition, rxLengths, type Rx } from "./pattern.js";
import { FORMATS } from "./formats.js";
import { intersect, literal, ref, repeat } from "../builders.js";
import { ENCODABLE, intersect as rangesIntersect, type Ranges } from "../code-ranges.js";
import { matchesSomething } from "./rx-automaton.js";
import { mergedAllOf, stringParts, type StringParts } from "./string-parts.js";
import { choice, EMPTY_STRING, integerRange, NOTHING, sequence, type Lowered, type Node } from "./nodes.js";
import { charIn, encodings } from "./strings.js";
import { INTEGER_MAX, MAG_ANY, MAG_NONZERO, MAG_ZERO } from "./numbers.js";
import { compareDecimals, decimalOf, numberRange, type NumberBound } from "./number-range.js";
import { SCHEMA_LIMITS, limitError, reachable, type LoweringBudget } from "../schema-limits.js";
import { JsonValueRules, type Names, type RuleMemo } from "./value-rules.js";
import { resolvePointer } from "./pointer.js";
import { keptNames, nameLanguage, withoutNames } from "./property-names.js";

export { DEFAULT_MAX_FREE_NESTING, SHARE_ABOVE, type Names } from "./value-rules.js";

const parsed = new Map<string, Rx>();
/** Format `name`'s expression, parsed (the whole string must match it, and every one of `also`). */
function formatRx(name: string): Rx {
  let rx = parsed.get(name);
  if (!rx) {
    const one = (source: string): Rx => {
      const alts = parsePattern(source, `format ${name}`);
      return alts.length === 1 ? alts[0]!.rx : { k: "alt", items: alts.map((a) => a.rx) };
    };
    const f = FORMATS[name]!;
    const alts = (f.parts ?? [[f.source]]).map(
      (all): Rx => (all.length === 1 ? one(all[0]!) : { k: "and", items: all.map(one) }),
    );
    rx = alts.length === 1 ? alts[0]! : { k: "alt", items: alts };
    parsed.set(name, rx);
  }
  return rx;
}

/** Any one character a string can spell. */
const ANY_CHAR: Rx = { k: "set", r: ENCODABLE };

/** The largest bound a merged run may have (GBNF's largest repetition; raw text unrolls what it checks up to 4096). */
const RUN_MERGE_MAX = 2000;

/**
 * Intersection items with the runs of one class among them (`[^\n\r]*`, `[\s\S]{0,300}`, a length
 * bound) merged into one run of the classes' common characters between the tighter bounds: the
 * same strings without a product (SendMessage's two patterns are one run of 0 to 300 characters
 * that are no line breaks). A run past RUN_MERGE_MAX stays an item. null: no string.
 */
function mergeRuns(items: Rx[]): Rx[] | null {
  const runs = items.map(asRun);
  if (runs.filter((x) => x !== undefined).length < 2) return items;
  let r: Ranges = ENCODABLE,
    min = 0,
    max: number | null = null;
  for (const x of runs)
    if (x) {
      r = rangesIntersect(r, x.r);
      min = Math.max(min, x.min);
      if (x.max !== null) max = max === null ? x.max : Math.min(max, x.max);
    }
  if ((max ?? min) > RUN_MERGE_MAX) return items;
  if (max !== null && min > max) return null;
  if (r.length === 0 && min > 0) return null;
  const merged: Rx = r.length === 0 ? { k: "seq", items: [] } : { k: "rep", item: { k: "set", r }, min, max };
  return [merged, ...items.filter((_, i) => runs[i] === undefined)];
}

/** One schema, and the schemas it refers to, lowered onto JSON value rules. */
export class Lowerer extends JsonValueRules {
  /** Each `$ref` rule made, by rule name: its pointer, where the `$ref` stands and the schema it names. */
  readonly refs = new Map<string, { pointer: string; at: string; target: string }>();

  constructor(
    private readonly rootSchema: unknown,
    options: JsonSchemaOptions,
    rootPath: string,
    names: Names,
    budget: LoweringBudget,
    private depth = 0,
    memo?: RuleMemo,
  ) {
    super(options, rootPath, names, budget, memo);
  }

  // -- schemas --------------------------------------------------------------------------------

  /** The grammar of `schema`, restricted to `allowed` types; null = no value matches. */
  lower(schema: unknown, path: string, allowed: ReadonlySet<TypeName> | null = null): Lowered {
    if (this.depth >= SCHEMA_LIMITS.schemaNesting)
      throw limitError(
        "schemaNesting",
        path,
        `schemas are nested more than ${SCHEMA_LIMITS.schemaNesting} deep here; flatten the schema (a deeply nested part can be one free-form object or a string holding JSON)`,
      );
    this.depth++;
    try {
      return this.lowerAt(schema, path, allowed);
    } finally {
      this.depth--;
    }
  }

  private lowerAt(schema: unknown, path: string, allowed: ReadonlySet<TypeName> | null): Lowered {
    if (schema === true) return allowed ? this.byTypes(allowed, true) : this.anyValue(path);
    if (schema === false) return null;
    const info = analyze(schema, path);
    let types = effectiveTypes(info);
    if (allowed) types = intersectTypes(types ?? ALL_TYPES, allowed);

    if (info.values !== null) {
      // enum/const: the fixed texts of the values that also pass the sibling keywords
      const rest = { ...info.s };
      delete rest.enum;
      delete rest.const;
      const ok = info.values.filter((v) => checkValue(v, rest, path, allowed, (p, at) => this.resolve(p, at)));
      return choice(ok.map((v) => this.fixed(this.syn.valueTexts(v))));
    }

    const comps = (["$ref", "anyOf", "oneOf", "allOf"] as const).filter((k) => hasOwn(info.s, k));
    if (comps.length > 0) {
      const kw = comps[0]!;
      if (comps.length > 1) {
        throw new UnsupportedSchemaError(
          childPath(path, comps[1]!),
          comps[1]!,
          `"${comps[1]}" next to "${kw}" in one schema is not supported; merge them into a single "${kw}" or "${comps[1]}"`,
        );
      }
      if (kw === "allOf" && (info.allOf!.filter((x) => !isTrivial(x)).length > 1 || info.constraining.length > 0)) {
        // parts that only constrain a string: one string schema of all their constraints
        const merged = mergedAllOf(info, allowed);
        return this.byTypes(merged.types ?? ALL_TYPES, false, info, merged.parts);
      }
      if (info.constraining.length > 0) {
        throw new UnsupportedSchemaError(
          childPath(path, kw),
          kw,
          `"${kw}" together with "${info.constraining[0]}" is not supported; move "${info.constraining[0]}" into the ${kw === "$ref" ? "referenced schema" : `"${kw}" alternatives`}`,
        );
      }
      if (info.ref !== undefined) return this.refNode(info.ref, path, types);
      if (info.allOf) {
        const real = info.allOf.filter((x) => !isTrivial(x));
        const i = real.length === 0 ? 0 : info.allOf.indexOf(real[0]);
        return this.lower(info.allOf[i], childPath(childPath(path, "allOf"), i), types);
      }
      const list = (info.anyOf ?? info.oneOf)!;
      return choice(list.map((b, i) => this.lower(b, childPath(childPath(path, kw), i), types)));
    }

    // no type and no type-specific keywords: any value
    if (types === null) return this.anyValue(path);
    return this.byTypes(types, false, info);
  }

  /** Any value: in raw text, any string (the only values raw text spells). */
  private anyValue(path: string): Node {
    return this.syn.name === "raw" ? this.valueString(path) : this.freeValue(this.nest);
  }

  /**
   * One alternative per type; `info` supplies the type-specific keywords (none for `true`), `strings`
   * the string's constraints when they are gathered from more than `info` (allOf).
   */
  private byTypes(types: ReadonlySet<TypeName>, free: boolean, info?: Info, strings?: StringParts): Lowered {
    const parts: Array<Lowered> = [];
    for (const t of TYPE_ORDER) {
      if (!types.has(t) || (this.syn.name === "raw" && t !== "string")) continue;
      switch (t) {
        case "null":
          parts.push(literal(this.syn.constants.null));
          break;
        case "boolean":
          parts.push(literal(this.syn.constants.true), literal(this.syn.constants.false));
          break;
        case "integer":
          parts.push(info ? this.lowerNumber(info, true) : this.integer());
          break;
        case "number":
          parts.push(info ? this.lowerNumber(info, false) : this.number());
          break;
        case "string":
          parts.push(info ? this.lowerString(info, strings) : this.valueString(this.rootPath));
          break;
        case "array":
          parts.push(free || !info ? this.freeArray(this.nest) : this.lowerArray(info));
          break;
        case "object":
          parts.push(free || !info ? this.freeObject(this.nest) : this.lowerObject(info));
          break;
      }
    }
    return choice(parts);
  }

  private lowerString(info: Info, parts: StringParts = stringParts(info)): Lowered {
    if (parts.patterns.length > 0 || parts.formats.length > 0) return this.lowerMatching(parts, info.path);
    const min = parts.min,
      max = reachable(parts.max);
    if (reachable(min) === null) return null; // no string is that long
    if (min === 0 && max === null) return this.valueString(info.path);
    const bound = this.cap === undefined ? max : max === null ? this.cap : Math.min(max, this.cap);
    if (bound !== null && min > bound) return null;
    const kw = max !== null && bound === max ? parts.maxPath : bound === null ? parts.minPath : null;
    this.charge(
      bound ?? min,
      kw ?? info.path,
      `a string of ${bound === null ? "at least" : "up to"} ${bound ?? min} characters`,
    );
    return this.quoted((q) => repeat(this.char(q), min, bound));
  }

  /**
   * Strings that match every pattern and format of `parts` (at `path`) and have a length it allows:
   * one expression, or the intersection of them all (an `intersect` node, which the native compiler
   * builds as the product of their automata; rx-automaton.ts first finds whether any string is
   * left). A format alone is a rule shared by every use. The length bound of maxStringLength does
   * not apply.
   */
  private lowerMatching(parts: StringParts, path: string): Lowered {
    const exprs: Rx[] = [];
    for (const f of parts.formats) {
      const rx = formatRx(f.name);
      if (parts.formats.length + parts.patterns.length > 1)
        this.charge(patternRepetition([{ rx }], f.path), f.path, `the format "${f.name}"`);
      exprs.push(rx);
    }
    for (const p of parts.patterns) exprs.push(this.patternRx(p.source, p.path));
    const min = parts.min,
      max = reachable(parts.max);
    const [lo, hi] = rxLengths({ k: "and", items: exprs });
    if (reachable(min) === null || (max !== null && (max < lo || min > max)) || (hi !== null && min > hi)) return null;
    const length = min > lo || (max !== null && (hi === null || max < hi));
    if (!length && exprs.length === 1)
      return parts.formats.length ? this.formatNode(parts.formats[0]!) : this.quoted((q) => this.rxNode(exprs[0]!, q));
    if (length) {
      const at = (max === null ? parts.minPath : parts.maxPath) ?? path;
      this.charge(max ?? min, at, `a string of ${max === null ? "at least" : "up to"} ${max ?? min} characters`);
      exprs.push({ k: "rep", item: ANY_CHAR, min, max });
    }
    // An expression that is alternatives of intersections (hostname's) is distributed: each
    // alternative is one flat intersection, whose lengths merge into one (the native product
    // counts one length and unrolls the rest: nfa_intersect.cpp).
    let branches: Rx[][] = [[]];
    for (const x of exprs) {
      const options = x.k === "alt" && x.items.every((i) => i.k === "and") ? x.items : [x];
      branches = branches.flatMap((b) => options.map((o) => [...b, ...(o.k === "and" ? o.items : [o])]));
    }
    const alts: Rx[] = [];
    for (const b of branches) {
      const items = mergeRuns(b);
      if (items !== null && matchesSomething(items)) alts.push(items.length === 1 ? items[0]! : { k: "and", items });
    }
    if (alts.length === 0) return null;
    const share = parts.formats.length > 0;
    return this.quoted((q) => this.rxNode(alts.length === 1 ? alts[0]! : { k: "alt", items: alts }, q, share, path));
  }

  /** Strings whose decoded value has format `f.name` (formats.ts), as a rule shared by every use. */
  private formatNode(f: { name: string; path: string }): Node {
    const name = this.sharedName(`format.${f.name}`);
    const rx = formatRx(f.name);
    // charged where the rule is not built yet (as its build did), by this use: the rule stays
    // free of charges, so the next schemas of the lowering take it built (RuleMemo)
    if (!hasOwn(this.rules, name)) this.charge(patternRepetition([{ rx }], f.path), f.path, `the format "${f.name}"`);
    return this.rule(name, () => this.quoted((q) => this.rxNode(rx, q, true, `"format": "${f.name}"`))!);
  }

  /** The strings whose decoded value contains a match of `pattern` (ECMAScript, u flag), as ajv tests it. */
  private patternRx(pattern: string, path: string): Rx {
    const alts = parsePattern(pattern, path);
    this.charge(patternRepetition(alts, path), path, "the pattern's quantifiers");
    const any: Rx = { k: "rep", item: ANY_CHAR, min: 0, max: null };
    const whole = alts.map(
      (a): Rx => ({ k: "seq", items: [...(a.start ? [] : [any]), a.rx, ...(a.end ? [] : [any])] }),
    );
    return whole.length === 1 ? whole[0]! : { k: "alt", items: whole };
  }

  /**
   * Each set of more than one code point (with `share`, every set) is a rule named by its code
   * points: the IR holds a class's escapes once however often expressions use it (the formats'
   * expressions use a few classes many times; Claude Code's tools repeat `[^\n\r]` in several
   * patterns), and the process's rule memo keeps it built for the next lowering.
   */
  private rxNode(rx: Rx, q: QuoteSyntax, share = false, at?: string): Lowered {
    switch (rx.k) {
      case "set":
        if (
          this.syn.name === "raw" ||
          rx.r.length === 0 ||
          (!share && rx.r.length === 1 && rx.r[0]![0] === rx.r[0]![1])
        )
          return charIn(rx.r, q, this.char(q));
        return this.rule(
          this.sharedName(`set.${q.id}.${rx.r.map(([a, b]) => (a === b ? a : `${a}-${b}`)).join(",")}`),
          () => charIn(rx.r, q, this.char(q))!,
        );
      case "seq": {
        const parts = rx.items.map((x) => this.rxNode(x, q, share, at));
        return parts.includes(null) ? null : sequence(...parts);
      }
      case "alt":
        return choice(rx.items.map((x) => this.rxNode(x, q, share, at)));
      case "rep": {
        const n = this.rxNode(rx.item, q, share, at);
        if (!n) return rx.min === 0 ? EMPTY_STRING : NOTHING;
        return rx.max === 1 && rx.min === 1 ? n : repeat(n, rx.min, rx.max);
      }
      case "and": {
        // `at` names the schema in the native compiler's error for a product past its limit
        const parts = rx.items.map((x) => this.rxNode(x, q, share, at));
        return parts.some((x) => x === null) ? null : intersect(parts as Node[], at);
      }
    }
  }

  private lowerNumber(info: Info, integer: boolean): Lowered {
    const s = info.s,
      path = info.path;
    const has = (k: string) => hasOwn(s, k);
    if (!NUMBER_KW.some(has)) return integer ? this.integer() : this.number();
    if (integer) {
      // A bound is the exact value of the double the schema holds (every double is a dyadic
      // rational, every one beyond 2^53 an integer): no bound is rounded on the way.
      let lo = -INTEGER_MAX,
        hi = INTEGER_MAX,
        loKw = "",
        hiKw = "";
      const raise = (b: bigint, k: string) => {
        if (b > lo) {
          lo = b;
          loKw = k;
        }
      };
      const lower = (b: bigint, k: string) => {
        if (b < hi) {
          hi = b;
          hiKw = k;
        }
      };
      if (has("minimum")) raise(BigInt(Math.ceil(s.minimum as number)), "minimum");
      if (has("exclusiveMinimum")) raise(BigInt(Math.floor(s.exclusiveMinimum as number)) + 1n, "exclusiveMinimum");
      if (has("maximum")) lower(BigInt(Math.floor(s.maximum as number)), "maximum");
      if (has("exclusiveMaximum")) lower(BigInt(Math.ceil(s.exclusiveMaximum as number)) - 1n, "exclusiveMaximum");
      const out = lo > INTEGER_MAX ? loKw : hi < -INTEGER_MAX ? hiKw : "";
      if (out) {
        throw unsupported(
          path,
          out,
          `${describe(s[out])} leaves only integers of ${INTEGER_MAX.toString().length + 1} or more digits, which have no spelling here (integers have at most ${INTEGER_MAX.toString().length} digits, so that every one is a finite double); lower the bound`,
        );
      }
      if (lo > hi) return null;
      // A rule named by its bounds: the same range in another property or tool (Claude Code's
      // tools bound most integers by ±(2^53 − 1), each range ~200 nodes) is built and sent once.
      return this.rule(this.sharedName(`int.${lo}.${hi}`), () => integerRange(lo, hi)!);
    }
    // bounds at 0 only: decided by sign class, every spelling (exponents too)
    if (NUMBER_KW.every((k) => !has(k) || s[k] === 0)) {
      let neg = true,
        zero = true,
        pos = true;
      if (has("minimum")) neg = false;
      if (has("exclusiveMinimum")) {
        neg = false;
        zero = false;
      }
      if (has("maximum")) pos = false;
      if (has("exclusiveMaximum")) {
        pos = false;
        zero = false;
      }
      const unsigned = choice([
        pos && zero ? MAG_ANY : null,
        pos && !zero ? MAG_NONZERO : null,
        zero && !pos ? MAG_ZERO : null,
      ]);
      const signed = choice([
        neg && zero ? MAG_ANY : null,
        neg && !zero ? MAG_NONZERO : null,
        zero && !neg ? MAG_ZERO : null,
      ]);
      return choice([unsigned, signed ? sequence(literal("-"), signed) : null]);
    }
    // other bounds: plain decimals (no exponent) compared exactly with the bounds' decimals
    let lo: NumberBound | null = null,
      hi: NumberBound | null = null;
    const tighter = (a: NumberBound | null, b: NumberBound, sign: 1 | -1): NumberBound => {
      if (!a) return b;
      const c = compareDecimals(a.value, b.value) * sign;
      return c > 0 || (c === 0 && a.strict) ? a : b;
    };
    if (has("minimum")) lo = tighter(lo, { value: decimalOf(s.minimum as number), strict: false }, 1);
    if (has("exclusiveMinimum")) lo = tighter(lo, { value: decimalOf(s.exclusiveMinimum as number), strict: true }, 1);
    if (has("maximum")) hi = tighter(hi, { value: decimalOf(s.maximum as number), strict: false }, -1);
    if (has("exclusiveMaximum")) hi = tighter(hi, { value: decimalOf(s.exclusiveMaximum as number), strict: true }, -1);
    return numberRange(lo, hi);
  }

  private lowerArray(info: Info): Lowered {
    const s = info.s,
      path = info.path;
    const tuple = Array.isArray(s.prefixItems) ? "prefixItems" : Array.isArray(s.items) ? "items" : null;
    const prefixSchemas = tuple ? (s[tuple] as unknown[]) : [];
    const restKw = tuple === "items" ? "additionalItems" : "items";
    // without the array form of "items", "additionalItems" has no effect (as in JSON Schema)
    const restSchema = hasOwn(s, restKw) ? s[restKw] : true;
    const min = num(s.minItems) ?? 0;
    let max = reachable(num(s.maxItems) ?? null);
    if (reachable(min) === null) return null; // no array is that long
    if (!tuple && restSchema === true && !hasOwn(s, "minItems") && !hasOwn(s, "maxItems"))
      return this.freeArray(this.nest);
    const prefix: Node[] = [];
    for (let i = 0; i < prefixSchemas.length; i++) {
      if (max !== null && i >= max) break;
      const n = this.lower(prefixSchemas[i], childPath(childPath(path, tuple!), i));
      if (!n) {
        max = i;
        break;
      } // no value fits slot i: the array ends before it
      prefix.push(n);
    }
    let rest: Node | null = null;
    if (prefix.length === prefixSchemas.length && (max === null || max > prefix.length)) {
      rest = this.lower(restSchema, hasOwn(s, restKw) ? childPath(path, restKw) : path);
      if (!rest) max = prefix.length;
    }
    if (max !== null && min > max) return null;
    const counted = rest ? (max ?? min) - prefix.length : 0;
    if (counted > 1)
      this.charge(
        counted,
        childPath(path, max !== null ? "maxItems" : "minItems"),
        `an array of ${max !== null ? "up to" : "at least"} ${max ?? min} items`,
      );
    return this.arrayOf(prefix, rest, min, max);
  }

  private lowerObject(info: Info): Lowered {
    const s = info.s,
      path = info.path;
    const props = (isObj(s.properties) ? s.properties : {}) as Obj;
    const required = [...new Set((s.required as string[] | undefined) ?? [])];
    const hasProps = hasOwn(s, "properties");
    const addl: unknown = hasOwn(s, "additionalProperties") ? s.additionalProperties : !hasProps;
    // propertyNames: the names it refuses never appear (a required one: no object matches).
    const names = hasOwn(s, "propertyNames")
      ? nameLanguage(s.propertyNames, childPath(path, "propertyNames"), (p, at) => this.resolve(p, at))
      : undefined;
    const kept = names === undefined ? null : keptNames([...Object.keys(props), ...required], required, names, path);
    if (!hasProps && addl === true && required.length === 0 && names === undefined) return this.freeObject(this.nest);
    const propsPath = childPath(path, "properties");
    const declared: Array<{ node: Node; required: boolean }> = [];
    for (const name of Object.keys(props)) {
      if (kept && !kept.has(name)) continue;
      const value = this.lower(props[name], childPath(propsPath, name));
      const req = required.includes(name);
      if (!value) {
        if (req)
          throw invalid(
            path,
            "required",
            `"${name}" is required but its schema matches no value, so no object can match; fix the schema of ${childPath(propsPath, name)}`,
          );
        continue;
      }
      declared.push({ node: this.member(this.fixed(this.syn.keyTexts(name))!, value), required: req });
    }
    const addlPath = childPath(path, "additionalProperties");
    const addlValue = addl === false ? null : this.lower(addl, hasOwn(s, "additionalProperties") ? addlPath : path);
    for (const name of required) {
      if (hasOwn(props, name)) continue;
      if (!addlValue) {
        throw invalid(
          path,
          "required",
          `"${name}" is required but is not declared in "properties" and additional properties are not allowed, so no object can match; declare "${name}" in "properties" (JSON Schema itself would accept this schema, but it matches nothing)`,
        );
      }
      declared.push({ node: this.member(this.fixed(this.syn.keyTexts(name))!, addlValue), required: true });
    }
    let extra: { key: Node; value: Node } | null = null;
    const excluded = [...new Set([...Object.keys(props), ...required])];
    if (addlValue && names === undefined)
      extra = { key: excluded.length ? this.keyExcept(excluded) : this.string(), value: addlValue };
    else if (addlValue && names) {
      // the names propertyNames accepts, less the declared ones, in the syntax's quotes
      const rx = withoutNames(names, excluded);
      const key = rx && this.quoted((q) => this.rxNode(rx, q));
      if (key) extra = { key, value: addlValue };
    }
    return this.objectOf(declared, extra);
  }

  /** A string (any quote, any spelling) whose decoded value is none of `names`. */
  private keyExcept(names: string[]): Node {
    interface Trie {
      end: boolean;
      kids: Map<number, Trie>;
    }
    const root: Trie = { end: false, kids: new Map() };
    for (const name of names) {
      const cps = Array.from(name, (c) => c.codePointAt(0)!);
      // a name with a lone surrogate has no spelling in this grammar, so it needs no exclusion
      if (cps.some((c) => c >= 0xd800 && c <= 0xdfff)) continue;
      let t = root;
      for (const c of cps) {
        let k = t.kids.get(c);
        if (!k) {
          k = { end: false, kids: new Map() };
          t.kids.set(c, k);
        }
        t = k;
      }
      t.end = true;
    }
    return choice(
      this.syn.quotes.map((q) => {
        const tail = sequence(repeat(this.char(q), 0, null), literal(q.quote));
        const build = (t: Trie): Node =>
          choice([
            t.end ? null : literal(q.quote),
            ...[...t.kids].map(([c, k]) => sequence(encodings(c, q), build(k))),
            sequence(t.kids.size ? this.charExcept([...t.kids.keys()], q) : this.char(q), tail),
          ])!;
        return sequence(literal(q.quote), build(root));
      }),
    )!;
  }

  private refNode(pointer: string, path: string, types: ReadonlySet<TypeName> | null): Node {
    const target = this.resolve(pointer, path);
    const name = `${this.names.local}.ref${pointer}${types ? `|${typeKey(types)}` : ""}`;
    if (!hasOwn(this.rules, name)) {
      this.rules[name] = ref(name); // placeholder while lowering, so recursion finds the name
      this.refs.set(name, { pointer, at: childPath(path, "$ref"), target: target.path });
      const n = this.lower(target.schema, target.path, types);
      if (!n)
        throw new InvalidSchemaError(
          target.path,
          undefined,
          `the schema referenced by "$ref": ${JSON.stringify(pointer)} matches no value${types ? ` of type ${typeKey(types)}` : ""}; fix it`,
        );
      this.rules[name] = n;
    }
    return ref(name);
  }

  private resolve(pointer: string, path: string): { schema: unknown; path: string } {
    return resolvePointer(this.rootSchema, this.rootPath, pointer, path);
  }
}
