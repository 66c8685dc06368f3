// The captured client tool sets (test/fixtures/client-tools, written by `npm run corpus:capture`) as
// function tools, and one set as the JSON schema of a single call object, for engines whose front
// end takes a JSON schema (bench:corpus gives it to llguidance and XGrammar).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const CLIENT_TOOLS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../test/fixtures/client-tools",
);

/** Every fixture, sorted by file name: [id (the file name without .json), fixture]. */
export function readClientToolFixtures(dir = CLIENT_TOOLS_DIR) {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => [f.slice(0, -".json".length), JSON.parse(readFileSync(path.join(dir, f), "utf8"))]);
}

/** The fixture's tools with an input schema as function tools: functions, a namespace's members, and typed tools carrying `parameters` (named by their type). */
export function functionTools(fixture) {
  const entries = fixture.tools.flatMap((t) => (t.type === "namespace" ? (t.tools ?? []) : [t]));
  return entries
    .filter((t) => t.parameters !== undefined)
    .map((t) => ({ type: "function", function: { name: t.name ?? t.type, parameters: t.parameters } }));
}

/** Keywords whose value is data, not a schema: a `$ref` key inside one is not a reference. */
const DATA = new Set(["enum", "const", "default", "examples", "example"]);

/** `schema` with every local `$ref` ("#…") moved under `base`, and no `$schema` at its root. */
function rebased(schema, base, root = true) {
  if (Array.isArray(schema)) return schema.map((s) => rebased(s, base, false));
  if (schema === null || typeof schema !== "object") return schema;
  const out = {};
  for (const [k, v] of Object.entries(schema)) {
    if (root && k === "$schema") continue;
    if (k === "$ref" && typeof v === "string" && v.startsWith("#")) out[k] = `${base}${v.slice(1)}`;
    else out[k] = DATA.has(k) ? v : rebased(v, base, false);
  }
  return out;
}

/**
 * The JSON schema of one call to one of `tools`: an `anyOf` with, per tool, the object
 * `{"name": <its name>, "arguments": <its parameters>}`, both required, nothing else. Local `$ref`s
 * in a tool's parameters are rewritten to point into its branch; `$schema` is left out.
 */
export function callObjectSchema(tools) {
  return {
    anyOf: tools.map((t, i) => ({
      type: "object",
      properties: {
        name: { const: t.function.name },
        arguments: rebased(t.function.parameters, `#/anyOf/${i}/properties/arguments`),
      },
      required: ["name", "arguments"],
      additionalProperties: false,
    })),
  };
}
