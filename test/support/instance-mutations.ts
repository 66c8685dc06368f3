// Mutations of a schema-valid instance, one change each, at every place the schema constrains:
// a required member dropped, a value of a type the schema does not allow, an enum or const value
// changed, a string or array bound broken (one past minLength / maxLength / minItems / maxItems),
// a pattern given a value it may refuse, a number past its bound or made fractional, a member
// added where additionalProperties is false, an item repeated under uniqueItems. Whether each is
// still valid is ajv's to say: the mutations only aim at the schema's edges.

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type S = Record<string, unknown>;
const isObj = (x: unknown): x is S => typeof x === "object" && x !== null && !Array.isArray(x);

export interface InstanceMutation {
  /** What changed and where (a JSON pointer into the instance). */
  what: string;
  /** The kind of change (the `what` up to " at "). */
  kind: string;
  value: Json;
}

/** A bound past which a string or array is not written out (a bound that large is broken by no mutation here). */
const LONGEST = 10_000;

/** `schema` with its local `$ref`s followed (`#/…` into `root`), at most 16 in a row. */
function resolved(root: unknown, schema: unknown): unknown {
  let s = schema;
  for (let i = 0; i < 16 && isObj(s) && typeof s.$ref === "string" && s.$ref.startsWith("#"); i++) {
    let cur: unknown = root;
    for (const seg of s.$ref.slice(1).split("/").filter(Boolean))
      cur = isObj(cur) ? cur[seg.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
    s = cur;
  }
  return s;
}

/** `instance` with the value at `at` replaced by `value` (undefined: the member or item removed). */
function setAt(instance: Json, at: Array<string | number>, value: Json | undefined): Json {
  if (at.length === 0) return value as Json;
  const [head, ...rest] = at;
  if (Array.isArray(instance)) {
    const copy = instance.slice();
    const i = head as number;
    if (rest.length === 0 && value === undefined) copy.splice(i, 1);
    else copy[i] = setAt(copy[i]!, rest, value);
    return copy;
  }
  const copy = { ...(instance as Record<string, Json>) };
  const k = head as string;
  if (rest.length === 0 && value === undefined) delete copy[k];
  else copy[k] = setAt(copy[k]!, rest, value);
  return copy;
}

const jsonType = (v: Json): string =>
  v === null
    ? "null"
    : Array.isArray(v)
      ? "array"
      : typeof v === "number"
        ? Number.isInteger(v)
          ? "integer"
          : "number"
        : typeof v;
/** One value of each JSON type, in the order a wrong type is picked. */
const OF_TYPE: Array<[string, Json]> = [
  ["string", "x"],
  ["integer", 7],
  ["number", 1.5],
  ["boolean", true],
  ["null", null],
  ["array", []],
  ["object", {}],
];
const allows = (types: unknown[], t: string) => types.includes(t) || (t === "integer" && types.includes("number"));
const codePoints = (s: string) => Array.from(s);

/** Every mutation of `instance` (valid for `schema`, whose `$ref`s resolve in `root`), deduplicated, in a fixed order. */
export function instanceMutations(schema: unknown, instance: Json, root: unknown = schema): InstanceMutation[] {
  const out = new Map<string, InstanceMutation>();
  const visit = (sch: unknown, value: Json, at: Array<string | number>, depth: number) => {
    const s = resolved(root, sch);
    if (!isObj(s) || depth > 12) return;
    const put = (kind: string, v: Json | undefined, path = at, detail = kind) => {
      const whole = setAt(instance, path, v);
      const key = JSON.stringify(whole);
      if (!out.has(key)) out.set(key, { kind, what: `${detail} at /${path.join("/")}`, value: whole });
    };
    const types = typeof s.type === "string" ? [s.type] : Array.isArray(s.type) ? (s.type as unknown[]) : undefined;
    // the root keeps its type: a call's arguments are an object in every dialect's syntax
    if (types && at.length > 0) {
      const wrong = OF_TYPE.find(([t]) => !allows(types, t));
      if (wrong) put("a wrong type", wrong[1], at, `${jsonType(wrong[1])} where ${types.join("|")}`);
    }
    if (Array.isArray(s.enum)) {
      const first = s.enum[0];
      put("a value outside enum", typeof first === "string" ? `${first}_x` : "__outside_enum__");
    }
    if ("const" in s) put("a value other than const", typeof s.const === "string" ? `${s.const}_x` : "__not_const__");
    if (typeof value === "string") {
      const cps = codePoints(value);
      if (typeof s.minLength === "number" && s.minLength > 0)
        put("one character under minLength", cps.slice(0, s.minLength - 1).join(""));
      if (typeof s.maxLength === "number" && s.maxLength < LONGEST)
        put("one character over maxLength", value + "x".repeat(Math.max(1, s.maxLength + 1 - cps.length)));
      if (typeof s.pattern === "string") {
        put("the empty string under a pattern", "");
        put("a newline and ! appended under a pattern", `${value}\n!`);
      }
    }
    if (typeof value === "number") {
      if (typeof s.minimum === "number") put("minimum - 1", s.minimum - 1);
      if (typeof s.maximum === "number") put("maximum + 1", s.maximum + 1);
      if (typeof s.exclusiveMinimum === "number") put("exclusiveMinimum itself", s.exclusiveMinimum);
      if (typeof s.exclusiveMaximum === "number") put("exclusiveMaximum itself", s.exclusiveMaximum);
      if (types?.includes("integer") && !types.includes("number")) put("a fraction where integer", value + 0.5);
    }
    if (isObj(value)) {
      const obj = value as Record<string, Json>;
      if (Array.isArray(s.required))
        for (const k of s.required)
          if (typeof k === "string" && k in obj) put("a required member dropped", undefined, [...at, k]);
      if (s.additionalProperties === false) {
        const props = isObj(s.properties) ? s.properties : {};
        let extra = "extra_member";
        while (extra in props) extra += "_";
        put("a member outside properties", { ...obj, [extra]: 1 });
      }
      const props = isObj(s.properties) ? s.properties : {};
      for (const [k, v] of Object.entries(obj)) {
        const sub = k in props ? props[k] : isObj(s.additionalProperties) ? s.additionalProperties : undefined;
        if (sub !== undefined) visit(sub, v, [...at, k], depth + 1);
      }
    }
    if (Array.isArray(value)) {
      if (typeof s.minItems === "number" && s.minItems > 0)
        put("one item under minItems", value.slice(0, s.minItems - 1));
      if (typeof s.maxItems === "number" && s.maxItems < LONGEST && value.length > 0)
        put("one item over maxItems", [
          ...value,
          ...Array.from({ length: Math.max(1, s.maxItems + 1 - value.length) }, () => value[0]!),
        ]);
      if (s.uniqueItems === true && value.length > 0) put("an item repeated under uniqueItems", [...value, value[0]!]);
      if (s.items !== undefined && !Array.isArray(s.items))
        value.slice(0, 2).forEach((item, i) => visit(s.items, item, [...at, i], depth + 1));
    }
    if (Array.isArray(s.allOf)) for (const branch of s.allOf) visit(branch, value, at, depth + 1);
  };
  visit(schema, instance, [], 0);
  return [...out.values()];
}

/** At most `n` of `mutations`: one of each kind in turn (the first of each kind first), so every kind is tried. */
export function sampleMutations(mutations: InstanceMutation[], n: number): InstanceMutation[] {
  const byKind = new Map<string, InstanceMutation[]>();
  for (const m of mutations) byKind.set(m.kind, [...(byKind.get(m.kind) ?? []), m]);
  const queues = [...byKind.values()];
  const out: InstanceMutation[] = [];
  for (let round = 0; out.length < n && queues.some((q) => q.length > round); round++)
    for (const q of queues) if (q[round] && out.length < n) out.push(q[round]!);
  return out;
}
