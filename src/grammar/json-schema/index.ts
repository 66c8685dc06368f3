/**
 * JSON Schema → grammar IR lowering.
 *
 * The native compiler knows every IR node kind except `jsonSchema`; this module replaces
 * `jsonSchema` nodes with literal/charClass/seq/alt/repeat/perm/ref nodes whose language is
 * exactly the set of JSON texts (in the whitespace style below) whose value the schema accepts,
 * under the semantics listed under "Semantics". Anything that cannot be lowered exactly is an
 * error (UnsupportedSchemaError / InvalidSchemaError) that names the JSON path of the offending
 * keyword and says what to do, never a silently looser or stricter grammar.
 *
 * WHITESPACE (`options.whitespace`)
 *   - "compact": no whitespace anywhere (`{"a":1,"b":[1,2]}`).
 *   - "single" (default): at most one space (U+0020) directly after each `:` and each `,`;
 *     nothing else (`{"a": 1,"b":[1, 2]}`, the shape of `JSON.stringify` and of Python's
 *     `json.dumps`). No space after `{`/`[` or before `}`/`]`/`:`/`,`.
 *   - "any": a run of 0..JSON_WS_MAX characters from [space, \t, \n, \r] in every gap
 *     between two structural tokens inside an object or array (after `{`/`[`, before and after
 *     `:`, before and after `,`, before `}`/`]`). Exactly one run per gap, so the grammar
 *     stays unambiguous.
 *   In every mode there is no whitespace before or after the top-level value (the surrounding
 *   grammar owns that), and `enum`/`const` values are emitted as one fixed text (below).
 *
 * SYNTAX (`options.syntax`, spellings in syntax.ts)
 *   - "json" (default): JSON texts, as everything below describes.
 *   - "python": the same VALUES written as Python literals (what Python's str() writes, e.g. a
 *     chat template's `{{ value | string }}`): strings in '…' or "…" with the escapes
 *     `\\ \' \" \n \r \t \xHH \uHHHH \UHHHHHHHH` (hex in either case; no surrogate code points,
 *     Python does not pair them), raw characters except the quote, backslash and controls < 0x20;
 *     `True`/`False`/`None`; keys are such strings; separators, whitespace and numbers as in JSON
 *     (Python writes 2.5, 1e-05, 1e+16, 1.0, all JSON number syntax). Fixed texts: a declared
 *     property name or an enum/const string is accepted in either quote with only the necessary
 *     escapes; an enum/const number as Python's int and float spellings (1, 1.0, 1e-05); other
 *     enum/const values as str() writes them (`{'k': [1, True]}`). No tuples, sets or bytes.
 *
 *   - "raw": an XML parameter's value (options.raw: its close, and whether newlines around it are
 *     padding): strings as their characters, no quotes, no escapes, up to the first close;
 *     values of other types have no raw spelling (raw-text.ts).
 *
 * SEMANTICS (where they differ from plain JSON Schema, on purpose)
 *   - `properties` without `additionalProperties` means `additionalProperties: false`
 *     (a tool call should not invent arguments). A schema with no `properties` keyword and no
 *     `additionalProperties` keyword (e.g. bare `{"type":"object"}`) is a free-form object.
 *   - No `type`: the type-specific keywords present decide the type (`{"properties":…}` is an
 *     object, `{"minLength":1}` a string); plain JSON Schema would also accept every value of
 *     the other types. Without type-specific keywords, every type is allowed.
 *   - `enum`/`const`: each value is emitted as the single text `JSON.stringify(value)` gives
 *     (compact, keys in the schema's order, strings escaped the way JSON.stringify escapes).
 *     Other spellings of the same value (another key order, `1.0`, `"\u0061"`) are rejected.
 *   - Declared property names are accepted only as `JSON.stringify(name)` spells them.
 *   - `oneOf` is lowered like `anyOf`: exclusivity is NOT enforced (a value matching two
 *     alternatives is accepted).
 *   - Numbers are spellings of finite doubles (json-numbers.ts has the exact language): an integer
 *     part of at most 308 digits; with an exponent of 1–4 digits, a value below 10^308, or up to
 *     1.7976931348623158e308 written as `1.…e308`. So `1e999` and `-1e400` are refused, every finite
 *     double's usual spelling (JavaScript, Python, C's %g/%e) is accepted.
 *   - `integer` is written without fraction or exponent (`-?(0|[1-9][0-9]{0,307})`); JSON Schema
 *     would also accept `1.0` or `1e2`. `-0` is accepted wherever 0 is. Integers beyond 2^53 are
 *     accepted as written (the parser keeps their digits).
 *   - Strings: any code point except `"`, `\` and controls < 0x20 raw, or the escapes
 *     `\" \\ \/ \b \f \n \r \t \uXXXX` (hex in either case). `\u` escapes of surrogates are
 *     accepted only as a valid high+low pair (one character); lone surrogate escapes are
 *     rejected. `minLength`/`maxLength` count characters (code points): a raw code point, a
 *     short escape, a `\uXXXX` escape or a surrogate-pair escape is one character each,
 *     which is how ajv counts them.
 *   - Duplicate keys: declared properties can appear at most once; keys in free-form objects
 *     and undeclared keys allowed by `additionalProperties` are not checked for duplicates (an
 *     unbounded set of keys: no context-free grammar tells whether one repeats). The parser
 *     reports a call holding any key twice invalid, naming it (src/parser/json-value.ts).
 *   - When both declared properties and undeclared keys are allowed, the undeclared keys must
 *     form one contiguous run (anywhere among the declared ones). Undeclared keys never equal a
 *     declared name, under any escape spelling.
 *   - Unconstrained values (`true`, `{}`, missing `items`, `additionalProperties: true`) are any
 *     JSON value with at most `maxFreeNesting` (default 6) nested objects/arrays; a free-form
 *     object/array (`{"type":"object"}`) counts itself as one of those levels.
 *   - `$ref` (local JSON pointers only: `#`, `#/$defs/…`, `#/definitions/…`, any `#/…`) becomes a
 *     `ref` node, so recursive schemas work up to the grammar's `maxRecursionDepth`. A recursion
 *     with no way out (`{"$ref": "#/properties/x"}` at `properties.x`, a required property or a
 *     non-empty array of the schema itself) matches no value: an InvalidSchemaError naming the `$ref`.
 *   - Numeric bounds: exact for `integer`, at any size: a bound is the exact value of the double
 *     the schema holds (`maximum: 1e300` is 1000000000000000052504760255204420248704…, not 10^300).
 *     For `number`, bounds equal to 0 (`minimum: 0`, `exclusiveMaximum: 0`, …) keep every
 *     spelling; any other bound admits plain decimals only (`-?(0|[1-9][0-9]*)(\.[0-9]+)?`, no
 *     exponent: 0.0000001, not 1e-7), compared exactly with the decimal JSON.stringify writes
 *     for the bound (`minimum: 1.1` admits 1.1 and refuses 1.0999999999999999999), as written,
 *     not as rounded to a double (json-number-range.ts).
 *   - `format`: the formats of formats.ts (date-time, date, time, duration, email, hostname, ipv4,
 *     ipv6, uuid, uri), exact as written there (docs/json-schema.md lists where they differ from
 *     ajv-formats). Any other format name is an annotation (src/dialects/format-notices.ts).
 *   - `pattern`: exact, as ajv tests it (`new RegExp(pattern, "u").test(decodedString)`: unanchored
 *     unless the pattern starts with `^` / ends with `$`), for the regex subset listed at
 *     `parsePattern`; each character may be written raw or escaped.
 *   - A string's `pattern`, `format`, `minLength` and `maxLength` all hold at once, and so do those
 *     of `allOf` parts that constrain a string only (string-parts.ts): one `intersect` node of them
 *     (built natively as the product of their automata), or one expression where they are runs of
 *     one class (`[^\n]*` and `[\s\S]{0,300}`: `[^\n]{0,300}`). Constraints no string meets
 *     match no value.
 *   - Keywords next to `$ref` apply too (2019-09+ semantics); next to `$ref`/`anyOf`/`oneOf` only
 *     `type`/`nullable` (which narrow the alternatives) and annotations are supported; next to
 *     `allOf`, the string keywords too, merged with its parts'.
 *
 * SIZE: the IR grows linearly with the schema. A subschema's grammar used in two places (an
 * array's first and further elements, an object's first and further extra members, a call a tool
 * grammar holds twice) is a rule both places refer to. The native engine builds rules, any-order
 * sets and repetition copies as walks reach them. What a schema may ask is bounded
 * (schema-limits.ts, docs/reliability.md): past a limit the lowering throws a GrammarLimitError
 * naming the limit and the schema path.
 *
 * Ignored (annotations): title, description, examples, example (OpenAPI), default, $comment,
 * $schema, $id, deprecated, readOnly, writeOnly, and vendor extensions `x-…`. Every other
 * keyword that is not supported is an UnsupportedSchemaError.
 */
import type { Grammar, GrammarNode, JsonSchemaOptions } from "../ir.js";
import { InvalidSchemaError } from "./errors.js";
import { isObj, hasOwn } from "./keywords.js";
import { ref } from "../builders.js";
import { countNodes } from "./nodes.js";
import { Lowerer, SHARE_ABOVE, type Names } from "./lower.js";
import { processRuleMemo, type RuleMemo } from "./value-rules.js";
import { LoweringBudget } from "../schema-limits.js";
import { Productivity } from "../productive.js";
import { rawTextValue } from "./raw-text.js";
import { mapChanged } from "../map-changed.js";

export { UnsupportedSchemaError, InvalidSchemaError } from "./errors.js";
export { DEFAULT_MAX_FREE_NESTING } from "./lower.js";
export { JSON_WS_MAX } from "./syntax.js";

/**
 * Lower one JSON schema to grammar IR. `path` prefixes the JSON paths in error messages.
 * Rule names start with `json.`; use `lowerJsonSchemas` to embed the result in a larger grammar.
 */
export function jsonSchemaToIR(
  schema: unknown,
  options: JsonSchemaOptions = {},
  path = "$",
): { root: GrammarNode; rules: Record<string, GrammarNode> } {
  const budget = new LoweringBudget();
  const out = lowerWith(schema, options, path, { shared: "json", local: "json" }, budget);
  budget.grow(countNodes(out.root) + Object.values(out.rules).reduce((n, r) => n + countNodes(r), 0), path);
  return out;
}

function lowerWith(
  schema: unknown,
  options: JsonSchemaOptions,
  path: string,
  names: Names,
  budget: LoweringBudget,
  depth = 0,
  doc?: { schema: unknown; path: string },
  memo?: RuleMemo,
  productivity: (rules: Record<string, GrammarNode>) => Productivity = (rules) => new Productivity(rules),
) {
  const l = new Lowerer(doc?.schema ?? schema, options, doc?.path ?? path, names, budget, depth, memo);
  let lowered = l.lower(schema, path);
  if (lowered && options.syntax === "raw") {
    if (!options.raw)
      throw new RangeError('JsonSchemaOptions.syntax "raw" needs JsonSchemaOptions.raw (the value\'s close)');
    lowered = rawTextValue(lowered, l.rules, options.raw, path);
  }
  if (!lowered) throw matchesNothing(path);
  const top = lowered;
  // Only a `$ref` can leave a lowering that matches nothing (the rest is dropped as it is built):
  // without one there is nothing to blame.
  if (l.refs.size > 0) {
    const blamed = productivity(l.rules).blame(top);
    if (blamed !== undefined) throw matchesNothing(path, l.refs.get(blamed));
  }
  return { root: top, rules: l.rules };
}

/**
 * The error for a schema that matches no value. The lowering drops what matches nothing as it goes
 * (`false`, an empty range, a required property of no value …) except through `$ref`, whose rule is
 * named before its schema is lowered: a reference that can only lead back to itself (`{"$ref":
 * "#/properties/x"}` at properties.x, or a required property or non-empty array of the schema
 * itself) is found here, by which `$ref` rule accepts nothing.
 */
function matchesNothing(path: string, r?: { pointer: string; at: string; target: string }): InvalidSchemaError {
  if (r)
    return new InvalidSchemaError(
      r.at,
      "$ref",
      `"$ref": ${JSON.stringify(r.pointer)} matches no value: the schema it names (${r.target}) leads back to itself on every path, directly or through other "$ref"s, before any value is complete, so no value ever ends; give the recursion a way out (make the property that recurses optional, allow an empty array, or add an "anyOf" branch without the "$ref")`,
    );
  return new InvalidSchemaError(
    path,
    undefined,
    "this schema matches no value, so no tool call could be generated; fix the schema",
  );
}

/** Objects by identity ("#" and a number), anything else by its JSON (which never starts with "#"). */
const objectIds = new WeakMap<object, number>();
let lastObjectId = 0;
function valueKey(x: unknown): string {
  if (x === null || typeof x !== "object") return String(JSON.stringify(x));
  let id = objectIds.get(x);
  if (id === undefined) objectIds.set(x, (id = ++lastObjectId));
  return `#${id}`;
}

/**
 * Replace every `jsonSchema` node in `grammar` (root and rules) by its lowering; rule names stay
 * unique. Equal jsonSchema nodes (the same schema object, options and path: a call that a grammar
 * holds twice) are lowered once, into a rule both places refer to. The shared rules (a string's
 * characters, a format's classes) are built by the first schema of the process that names them and
 * taken as built by the rest, frozen (processRuleMemo in value-rules.ts). The limits of schema-limits.ts hold
 * for the whole grammar: a GrammarLimitError names the schema path that went past one.
 */
export function lowerJsonSchemas(grammar: Grammar): Grammar {
  return lowerAll(grammar, true);
}

/**
 * @internal lowerJsonSchemas with every schema's shared rules built by its own lowering, none taken
 * from another's (RuleMemo): the same grammar, for tests that check that it is.
 */
export function lowerJsonSchemasUnshared(grammar: Grammar): Grammar {
  return lowerAll(grammar, false);
}

function lowerAll(grammar: Grammar, share: boolean): Grammar {
  const existing = isObj(grammar.rules) ? Object.keys(grammar.rules) : [];
  let ns = "json";
  for (let i = 1; existing.some((n) => n.startsWith(`${ns}.`)); i++) ns = `json_${i}`;
  // A Map while rules are added (an object given hundreds of new keys one by one changes its shape
  // at each), the grammar's object at the end, in the same order.
  const rules = new Map<string, GrammarNode>(isObj(grammar.rules) ? Object.entries(grammar.rules) : []);
  const budget = new LoweringBudget();
  const memo = share ? processRuleMemo(ns) : undefined;
  const lowered = new Map<string, GrammarNode>();
  // With shared rules taken as built, one Productivity judges every schema's lowering: a rule's
  // name means one body (a schema's own rules are named after it), so what it found of a shared
  // rule for one schema holds for the next.
  let current: Record<string, GrammarNode> = {};
  const shared = memo && new Productivity((name) => (hasOwn(current, name) ? current[name] : rules.get(name)));
  const productivity = shared
    ? (own: Record<string, GrammarNode>) => {
        current = own;
        return shared;
      }
    : undefined;
  let count = 0;
  let changed = false;
  // Malformed nodes are passed through untouched: the native compiler reports them with their path.
  const walk = (n: GrammarNode): GrammarNode => {
    if (!isObj(n)) return n;
    switch (n.type) {
      case "jsonSchema": {
        changed = true;
        const path = typeof n.path === "string" ? n.path : "$";
        const depth = typeof n.depth === "number" && Number.isSafeInteger(n.depth) && n.depth > 0 ? n.depth : 0;
        const doc =
          n.document === undefined
            ? undefined
            : { schema: n.document, path: typeof n.documentPath === "string" ? n.documentPath : "$" };
        // The schema and its document by identity (a tool's parameters object, the same wherever
        // its calls are written), not by their JSON: spelling every schema out took a tenth of
        // the lowering of a tool set.
        const key = `${valueKey(n.schema)} ${valueKey(n.document)} ${JSON.stringify([n.options ?? {}, path, depth, n.documentPath])}`;
        const seen = lowered.get(key);
        if (seen) return seen;
        const local = `${ns}.${count++}`;
        const out = lowerWith(
          n.schema,
          n.options ?? {},
          path,
          { shared: ns, local },
          budget,
          depth,
          doc,
          memo,
          productivity,
        );
        // shared rules are named after everything they depend on, so equal names mean equal rules
        const rootSize = countNodes(out.root);
        let size = rootSize;
        for (const [k, v] of Object.entries(out.rules))
          if (!rules.has(k)) {
            rules.set(k, v);
            size += countNodes(v);
          }
        budget.grow(size, path);
        let root = out.root;
        if (rootSize > SHARE_ABOVE) {
          rules.set(`${local}.root`, root);
          root = ref(`${local}.root`);
        }
        lowered.set(key, root);
        return root;
      }
      // A node none of whose parts changed is returned as it is: the grammar is copied only along
      // the paths to a schema (a tool call's scaffolding, the refused-call trie stay as built).
      case "seq":
      case "alt":
      case "intersect": {
        const items = Array.isArray(n.items) ? mapChanged(n.items, (x) => walk(x)) : n.items;
        return items === n.items ? n : { ...n, items };
      }
      case "repeat": {
        const item = walk(n.item);
        return item === n.item ? n : { ...n, item };
      }
      case "perm": {
        const items = Array.isArray(n.items)
          ? mapChanged(n.items, (it) => {
              if (!isObj(it)) return it;
              const node = walk(it.node);
              return node === it.node ? it : { ...it, node };
            })
          : n.items;
        const separator = n.separator ? walk(n.separator) : n.separator;
        return items === n.items && separator === n.separator
          ? n
          : {
              ...n,
              ...(Array.isArray(n.items) ? { items } : {}),
              ...(n.separator ? { separator } : {}),
            };
      }
      default:
        return n;
    }
  };
  const root = walk(grammar.root);
  if (isObj(grammar.rules)) for (const [k, v] of Object.entries(grammar.rules)) rules.set(k, walk(v));
  if (!changed) return grammar;
  return { ...grammar, root, rules: Object.fromEntries(rules) };
}
