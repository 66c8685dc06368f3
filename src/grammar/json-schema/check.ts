// Whether a value passes a schema, with the lowering's semantics: enum/const values are kept
// only when their sibling keywords accept them.
import { childPath } from "./errors.js";
import { formatAccepts, isEnforcedFormat } from "./formats.js";
import { matches, nameLanguage } from "./property-names.js";
import {
  analyze,
  effectiveTypes,
  hasOwn,
  intersectTypes,
  isObj,
  num,
  typeOk,
  ALL_TYPES,
  deepEqual,
  type Obj,
  type Resolve,
  type TypeName,
} from "./keywords.js";

export function checkValue(
  v: unknown,
  schema: unknown,
  path: string,
  allowed: ReadonlySet<TypeName> | null,
  resolve: Resolve,
): boolean {
  const check = (x: unknown, sub: unknown, p: string) => checkValue(x, sub, p, null, resolve);
  if (schema === true) return allowed ? typeOk(v, allowed) : true;
  if (schema === false) return false;
  const info = analyze(schema, path);
  let types = effectiveTypes(info);
  if (allowed) types = intersectTypes(types ?? ALL_TYPES, allowed);
  if (types && !typeOk(v, types)) return false;
  if (info.values !== null && !info.values.some((e) => deepEqual(e, v))) return false;
  const s = info.s;
  if (info.ref !== undefined) {
    const t = resolve(info.ref, path);
    if (!check(v, t.schema, t.path)) return false;
  }
  for (const kw of ["anyOf", "oneOf"] as const) {
    const list = info[kw];
    if (list && !list.some((b, i) => check(v, b, childPath(childPath(path, kw), i)))) return false;
  }
  if (info.allOf && !info.allOf.every((b, i) => check(v, b, childPath(childPath(path, "allOf"), i)))) return false;
  if (typeof v === "string") {
    const n = Array.from(v).length;
    if (n < (num(s.minLength) ?? 0) || n > (num(s.maxLength) ?? Infinity)) return false;
    if (typeof s.pattern === "string" && !new RegExp(s.pattern, "u").test(v)) return false;
    if (isEnforcedFormat(s.format) && !formatAccepts(s.format, v)) return false;
  } else if (typeof v === "number") {
    if (hasOwn(s, "minimum") && !(v >= (s.minimum as number))) return false;
    if (hasOwn(s, "maximum") && !(v <= (s.maximum as number))) return false;
    if (hasOwn(s, "exclusiveMinimum") && !(v > (s.exclusiveMinimum as number))) return false;
    if (hasOwn(s, "exclusiveMaximum") && !(v < (s.exclusiveMaximum as number))) return false;
  } else if (Array.isArray(v)) {
    if (v.length < (num(s.minItems) ?? 0) || v.length > (num(s.maxItems) ?? Infinity)) return false;
    const tuple = Array.isArray(s.prefixItems) ? "prefixItems" : Array.isArray(s.items) ? "items" : null;
    const prefix = tuple ? (s[tuple] as unknown[]) : [];
    const restKw = tuple === "items" ? "additionalItems" : "items";
    const rest = hasOwn(s, restKw) ? s[restKw] : true;
    for (let i = 0; i < v.length; i++) {
      const sub = i < prefix.length ? prefix[i] : rest;
      const subPath = i < prefix.length ? childPath(childPath(path, tuple!), i) : childPath(path, restKw);
      if (!check(v[i], sub, subPath)) return false;
    }
  } else if (isObj(v)) {
    const o = v;
    const props = (isObj(s.properties) ? s.properties : {}) as Obj;
    const addl: unknown = hasOwn(s, "additionalProperties") ? s.additionalProperties : !hasOwn(s, "properties");
    for (const r of (s.required as string[] | undefined) ?? []) if (!hasOwn(o, r)) return false;
    if (hasOwn(s, "propertyNames")) {
      const names = nameLanguage(s.propertyNames, childPath(path, "propertyNames"), resolve);
      if (Object.keys(o).some((k) => names === null || !matches(names, k))) return false;
    }
    for (const k of Object.keys(o)) {
      const sub = hasOwn(props, k) ? props[k] : addl;
      if (!check(o[k], sub, childPath(childPath(path, "properties"), k))) return false;
    }
  }
  return true;
}
