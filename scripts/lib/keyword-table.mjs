// The tables of docs/json-schema.md that the code decides, written between their markers:
//   keywords: every keyword the lowering knows (src/grammar/json-schema/keywords.ts: SUPPORTED,
//     DEFS, ANNOTATIONS, UNSUPPORTED_HINTS; src/dialects/parameters-top.ts: TOP_LEVEL_HINTS), each
//     probed as a tool parameter's schema (or the parameters' top level) in every dialect: refused
//     (the grammar cannot be built; the refusal's message), annotation (the lowered grammar is the
//     one without the keyword) or enforced (it is another grammar). A keyword whose answer differs
//     between dialects is an error, not a row.
//   corpus: each captured client tool set (test/fixtures/client-tools) lowered tool by tool in
//     every dialect: the tools that compile and those refused, with the refusal, which must be
//     KNOWN_REFUSED's (scripts/corpus/known-refused.mjs) and the same in every dialect.
// Plain ESM: scripts/keyword-table.mjs writes the doc; test/no-model/keyword-table.test.ts fails
// when the doc and the code disagree.
import { readFileSync, writeFileSync } from "node:fs";
import { functionTools, readClientToolFixtures } from "../corpus/client-tools.mjs";
import { KNOWN_REFUSED } from "../corpus/known-refused.mjs";

export const DOC = new URL("../../docs/json-schema.md", import.meta.url);

/**
 * Probes of the keywords the lowering reads: `[label, schema]`, each schema with the keyword, as a
 * parameter's schema. Every keyword of SUPPORTED has at least one (keywordRows throws otherwise).
 * Each is a schema whose language the keyword changes in every spelling: in raw text (an XML
 * dialect's string value) an untyped schema that admits strings is any string, as `{"type":
 * "string"}` is, so the probes of type and composition use other types.
 */
export const PROBES = {
  type: [["", { type: "integer" }]],
  nullable: [
    ["true", { type: "integer", nullable: true }],
    ["false", { type: "integer", nullable: false }],
  ],
  enum: [["", { enum: ["a", 1] }]],
  const: [["", { const: "a" }]],
  anyOf: [["", { anyOf: [{ type: "integer" }, { type: "boolean" }] }]],
  oneOf: [["", { oneOf: [{ type: "integer" }, { type: "boolean" }] }]],
  allOf: [
    ["one constraining schema", { allOf: [{ type: "integer" }] }],
    ["several constraining schemas", { allOf: [{ type: "integer", minimum: 1 }, { maximum: 3 }] }],
  ],
  $ref: [
    ["local", { $ref: "#/$defs/s" }],
    ["remote", { $ref: "https://example.com/s.json" }],
  ],
  uniqueItems: [
    ["false", { type: "array", uniqueItems: false }],
    ["true", { type: "array", uniqueItems: true }],
  ],
  format: [
    ...["date-time", "date", "time", "duration", "email", "hostname", "ipv4", "ipv6", "uuid", "uri"].map((f) => [
      `"${f}"`,
      { type: "string", format: f },
    ]),
    ['any other, e.g. "x-color"', { type: "string", format: "x-color" }],
  ],
  minLength: [["", { type: "string", minLength: 2 }]],
  maxLength: [["", { type: "string", maxLength: 2 }]],
  pattern: [["", { type: "string", pattern: "^[a-z]+$" }]],
  minimum: [["", { type: "number", minimum: 1.5 }]],
  maximum: [["", { type: "integer", maximum: 10 }]],
  exclusiveMinimum: [
    ["a number", { type: "number", exclusiveMinimum: 0 }],
    ["draft-04 boolean", { type: "number", minimum: 0, exclusiveMinimum: true }],
  ],
  exclusiveMaximum: [
    ["a number", { type: "integer", exclusiveMaximum: 10 }],
    ["draft-04 boolean", { type: "number", maximum: 0, exclusiveMaximum: true }],
  ],
  properties: [["", { type: "object", properties: { a: { type: "string" } } }]],
  required: [["", { type: "object", properties: { a: { type: "string" } }, required: ["a"] }]],
  additionalProperties: [["", { type: "object", additionalProperties: { type: "integer" } }]],
  propertyNames: [["", { type: "object", propertyNames: { pattern: "^[a-z]+$" } }]],
  items: [
    ["a schema", { type: "array", items: { type: "string" } }],
    ["draft-04 array", { type: "array", items: [{ type: "string" }] }],
  ],
  prefixItems: [["", { type: "array", prefixItems: [{ type: "string" }] }]],
  additionalItems: [["", { type: "array", items: [{ type: "string" }], additionalItems: false }]],
  minItems: [["", { type: "array", minItems: 1 }]],
  maxItems: [["", { type: "array", maxItems: 3 }]],
};

/** What an enforced or annotation row means beyond its name (the refused rows quote the refusal). */
const NOTES = {
  type: "one type or a list",
  "nullable / true": "OpenAPI's: adds `null` to `type`",
  enum: "each value in one spelling, JSON.stringify's",
  const: "in one spelling, JSON.stringify's",
  oneOf: "as `anyOf`: a value two alternatives match is taken",
  "$ref / local": "a JSON pointer in the tool's parameters (`#`, `#/$defs/…`, any `#/…`), recursion included",
  'format / any other, e.g. "x-color"':
    "any string; a notice says so once; `strictFormats` (`--strict-formats`) refuses it",
  pattern: "a regular-expression subset, exact (below)",
  minimum: "on `number` a bound other than 0 admits plain decimals only (below)",
  properties: "without `additionalProperties`, no other key",
  required: "at the parameters' top, a name not in `properties` is refused",
  additionalProperties: "at the parameters' top, XML and Python calls write no other name",
  propertyNames:
    "`type`, `enum`, `const`, `pattern`, `minLength`/`maxLength`, `$ref`, `anyOf`/`oneOf`/`allOf` on names (below)",
  $defs: "schemas for `$ref`; one no `$ref` names is not lowered",
  definitions: "schemas for `$ref`; one no `$ref` names is not lowered",
  "x-…": "vendor extensions",
};

/** The tool f whose parameter `v` (required) has schema `v`, or whose parameters are `top`. */
const toolsOf = (v, top) => [
  {
    type: "function",
    function: {
      name: "f",
      parameters: top ?? {
        type: "object",
        properties: { v },
        required: ["v"],
        $defs: { s: { type: "integer" } },
      },
    },
  },
];

/** The lowered grammar of `tools` in `dialect` as text, or the refusal. */
function lowered(lib, dialect, tools) {
  try {
    return {
      ir: JSON.stringify(lib.lowerJsonSchemas(lib.buildToolGrammar({ dialect, tools, toolChoice: "required" }))),
    };
  } catch (e) {
    const m = String(e?.message ?? e);
    const path = typeof e?.path === "string" ? e.path : "";
    return { refused: m.startsWith(`${path}: `) ? m.slice(path.length + 2) : m };
  }
}

/** The keyword's answer in every dialect: one of enforced / annotation / refused (with the message), the same everywhere. */
function answer(lib, name, schema, top) {
  const without = top ? undefined : { ...schema };
  if (without) for (const k of Object.keys(without)) if (k === name) delete without[k];
  const answers = lib.dialects.map((d) => {
    const got = lowered(lib, d, top ? toolsOf(undefined, schema) : toolsOf(schema));
    if (got.refused !== undefined) return `refused\t${got.refused}`;
    if (top) return "enforced";
    return got.ir === lowered(lib, d, toolsOf(without)).ir ? "annotation" : "enforced";
  });
  const distinct = [...new Set(answers)];
  if (distinct.length !== 1)
    throw new Error(
      `${name} (${JSON.stringify(schema)}) is answered differently by dialect: ${distinct.map((a) => `${a} in ${lib.dialects.filter((_, i) => answers[i] === a).join(", ")}`).join("; ")}`,
    );
  const [status, message] = distinct[0].split("\t");
  return { status, message };
}

const cell = (s) => s.replaceAll("|", "\\|").replaceAll("\n", " ");
const code = (x) => `\`${typeof x === "string" ? x : JSON.stringify(x)}\``;

/** The keyword table's rows: [keyword, value probed, answer, note]. */
export function keywordRows(lib) {
  const rows = [];
  const add = (kw, label, schema, top = false) => {
    const { status, message } = answer(lib, kw, schema, top);
    const note = message ?? NOTES[label ? `${kw} / ${label}` : kw] ?? NOTES[kw] ?? "";
    rows.push([code(kw), label ? cell(label) : "", `**${status}**`, cell(note)]);
  };
  for (const kw of lib.SUPPORTED) {
    const probes = PROBES[kw];
    if (!probes) throw new Error(`keyword-table.mjs PROBES has no probe of the supported keyword "${kw}"`);
    for (const [label, schema] of probes) add(kw, label, schema);
  }
  for (const kw of lib.DEFS) add(kw, "", { type: "string", [kw]: { x: { type: "integer" } } });
  for (const kw of lib.ANNOTATIONS) add(kw, "", { type: "string", [kw]: "x" });
  add("x-…", "any `x-` name", { type: "string", "x-vendor": { a: 1 } });
  for (const kw of Object.keys(lib.UNSUPPORTED_HINTS)) add(kw, "", { [kw]: {} });
  add("any other name", "e.g. `maxlength`", { type: "string", maxlength: 2 });
  rows[rows.length - 1][0] = "any other name";
  for (const kw of Object.keys(lib.TOP_LEVEL_HINTS))
    add(
      kw,
      "at the parameters' top",
      { type: "object", properties: { v: { type: "string" } }, [kw]: kw === "$ref" ? "#" : true },
      true,
    );
  return rows;
}

export function keywordTable(lib) {
  const rows = keywordRows(lib);
  return [
    `| keyword | value | in all ${lib.dialects.length} dialects | note, or the refusal (after the path) |`,
    "|---|---|---|---|",
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
}

/** Each fixture's function tools lowered one by one in every dialect: [id, fixture, tools, refused: [name, message]]. */
export function corpusResults(lib) {
  return readClientToolFixtures().map(([id, fixture]) => {
    const tools = functionTools(fixture);
    const refused = [];
    for (const t of tools) {
      const answers = lib.dialects.map((d) => {
        try {
          lib.checkToolLimits({ dialect: d, tools: [t], toolChoice: "required" });
          return "";
        } catch (e) {
          return String(e?.message ?? e);
        }
      });
      if (new Set(answers).size !== 1)
        throw new Error(`${id}/${t.function.name} is answered differently by dialect: ${JSON.stringify(answers)}`);
      if (answers[0]) refused.push([t.function.name, answers[0]]);
    }
    return [id, fixture, tools, refused];
  });
}

export function corpusTable(lib) {
  const results = corpusResults(lib);
  const listed = Object.keys(KNOWN_REFUSED).sort();
  const found = results.flatMap(([id, , , refused]) => refused.map(([name]) => `${id}/${name}`)).sort();
  if (JSON.stringify(listed) !== JSON.stringify(found))
    throw new Error(`refused tools ${JSON.stringify(found)}, but KNOWN_REFUSED lists ${JSON.stringify(listed)}`);
  const total = results.reduce((n, [, , tools]) => n + tools.length, 0);
  return [
    `| fixture | package | function schemas | compile in all ${lib.dialects.length} dialects | refused in all ${lib.dialects.length} (the refusal) |`,
    "|---|---|--:|--:|---|",
    ...results.map(
      ([id, f, tools, refused]) =>
        `| ${id} | \`${f.package}\` ${f.version} | ${tools.length} | ${tools.length - refused.length} | ${
          refused.length === 0 ? "—" : refused.map(([name, m]) => `${name}: ${cell(code(m))}`).join("<br>")
        } |`,
    ),
    "",
    `${total} function schemas: ${total - found.length} compile in every dialect, ${found.length} ${found.length === 1 ? "is" : "are"} refused, the same in every dialect.`,
  ].join("\n");
}

/** `doc` with each generated block between its markers (`<!-- name:start -->` … `<!-- name:end -->`). */
export function withTables(doc, blocks) {
  let out = doc;
  for (const [name, text] of Object.entries(blocks)) {
    const re = new RegExp(`(<!-- ${name}:start -->\\n)[\\s\\S]*?(<!-- ${name}:end -->)`);
    if (!re.test(out))
      throw new Error(`docs/json-schema.md has no <!-- ${name}:start --> … <!-- ${name}:end --> block`);
    out = out.replace(re, (_m, a, b) => `${a}${text}\n${b}`);
  }
  return out;
}

/** The doc as the code says it should be. */
export const generatedDoc = (lib, doc = readFileSync(DOC, "utf8")) =>
  withTables(doc, { keywords: keywordTable(lib), "corpus-results": corpusTable(lib) });

export function writeDoc(lib) {
  const doc = readFileSync(DOC, "utf8");
  const next = generatedDoc(lib, doc);
  if (next !== doc) writeFileSync(DOC, next);
  return next !== doc;
}
