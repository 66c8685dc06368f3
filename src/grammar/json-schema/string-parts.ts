// A string's constraints gathered where they are stated: one schema's "pattern", "format",
// "minLength" and "maxLength", and those of the "allOf" parts merged into it (allOf of parts that
// only constrain a string). The lowering writes them as one intersection (lower.ts).
import { childPath, UnsupportedSchemaError } from "./errors.js";
import {
  analyze,
  effectiveTypes,
  hasOwn,
  intersectTypes,
  isTrivial,
  num,
  type Info,
  type TypeName,
} from "./keywords.js";
import { isEnforcedFormat } from "./formats.js";

export interface StringParts {
  /** Each "pattern", with the path of the keyword. */
  patterns: Array<{ source: string; path: string }>;
  /** Each format the grammar enforces, with the path of its "format". */
  formats: Array<{ name: string; path: string }>;
  /** The largest minLength (0 when none) and the smallest maxLength (null when none), with their keywords' paths. */
  min: number;
  minPath: string | null;
  max: number | null;
  maxPath: string | null;
}

/** The string constraints of one schema's own keywords. */
export function stringParts(info: Info): StringParts {
  const s = info.s;
  const parts: StringParts = { patterns: [], formats: [], min: 0, minPath: null, max: null, maxPath: null };
  if (typeof s.pattern === "string") parts.patterns.push({ source: s.pattern, path: childPath(info.path, "pattern") });
  if (isEnforcedFormat(s.format)) parts.formats.push({ name: s.format, path: childPath(info.path, "format") });
  const min = num(s.minLength),
    max = num(s.maxLength);
  if (min !== undefined && min > 0) {
    parts.min = min;
    parts.minPath = childPath(info.path, "minLength");
  }
  if (max !== undefined) {
    parts.max = max;
    parts.maxPath = childPath(info.path, "maxLength");
  }
  return parts;
}

/** Both parts' constraints: every pattern and format, the tighter of each length bound. */
export function mergeStringParts(a: StringParts, b: StringParts): StringParts {
  const out = { ...a, patterns: [...a.patterns, ...b.patterns], formats: [...a.formats, ...b.formats] };
  if (b.min > out.min) {
    out.min = b.min;
    out.minPath = b.minPath;
  }
  if (b.max !== null && (out.max === null || b.max < out.max)) {
    out.max = b.max;
    out.maxPath = b.maxPath;
  }
  return out;
}

/** The keywords that constrain a string only (a format the grammar does not enforce is an annotation). */
const STRING_ONLY = new Set(["pattern", "minLength", "maxLength", "format"]);

/**
 * A schema with "allOf" whose parts, and whose own keywords, constrain a string only: the types
 * every part allows (null: any) and the string constraints of them all. Throws the refusal for an
 * "allOf" it cannot merge (a part with other keywords: an object, a number, an enum, a composition).
 */
export function mergedAllOf(
  info: Info,
  allowed: ReadonlySet<TypeName> | null,
): { types: ReadonlySet<TypeName> | null; parts: StringParts } {
  const path = childPath(info.path, "allOf");
  const other = info.constraining.find((k) => !STRING_ONLY.has(k));
  if (other !== undefined)
    throw new UnsupportedSchemaError(
      path,
      "allOf",
      `"allOf" together with "${other}" is not supported; move "${other}" into the "allOf" parts`,
    );
  let types = effectiveTypes(info);
  if (allowed) types = types ? intersectTypes(types, allowed) : new Set(allowed);
  let parts = stringParts(info);
  info.allOf!.forEach((part, i) => {
    if (isTrivial(part)) return;
    const p = analyze(part, childPath(path, i));
    const kept = Object.keys(p.s).filter((k) => hasOwn(p.s, k) && k !== "type" && !isTrivial({ [k]: p.s[k] }));
    const foreign = kept.find((k) => !STRING_ONLY.has(k));
    if (foreign !== undefined || p.values !== null)
      throw new UnsupportedSchemaError(
        path,
        "allOf",
        `"allOf" with more than one constraining schema is supported only where each constrains a string ("pattern", "minLength", "maxLength", "format"), and ${childPath(path, i)} has "${foreign ?? (hasOwn(p.s, "enum") ? "enum" : "const")}"; merge the parts into one schema`,
      );
    const own = effectiveTypes(p);
    if (own) types = types ? intersectTypes(types, own) : own;
    parts = mergeStringParts(parts, stringParts(p));
  });
  return { types, parts };
}
