// A captured tool list as a fixture: each tool's name, type and input schema with the clients' prose
// removed (every `description`, `title`, `examples` and comment at a schema position: that text is
// theirs, not ours). Property names, enum and const values, defaults and patterns stay: they are the
// schema. Keys are walked by JSON Schema's structure, so a property NAMED "description" stays.

/** Annotation keywords that hold prose. */
export const PROSE = new Set(["description", "title", "examples", "example", "$comment", "markdownDescription"]);
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
const SCHEMA_ONE = new Set([
  "items",
  "additionalItems",
  "additionalProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
]);
const SCHEMA_LIST = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);

/** `schema` without prose, at every schema position. */
export function stripSchema(schema) {
  if (Array.isArray(schema)) return schema.map(stripSchema);
  if (schema === null || typeof schema !== "object") return schema;
  const out = {};
  for (const [k, v] of Object.entries(schema)) {
    if (PROSE.has(k)) continue;
    if (SCHEMA_MAPS.has(k) && v && typeof v === "object" && !Array.isArray(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, stripSchema(s)]));
    else if (SCHEMA_ONE.has(k)) out[k] = stripSchema(v);
    else if (SCHEMA_LIST.has(k) && Array.isArray(v)) out[k] = v.map(stripSchema);
    else out[k] = v;
  }
  return out;
}

/** Tool-level keys that hold prose or presentation (MCP's `annotations` carry a title). */
const TOOL_PROSE = new Set([...PROSE, "annotations", "outputSchema", "icons", "_meta"]);
const SCHEMA_KEYS = ["parameters", "input_schema", "inputSchema"];

/**
 * One tool of any API's shape (Anthropic's {name, input_schema}, Responses' {type, name,
 * parameters}, chat's {type, function}, MCP's {name, inputSchema}; namespaces' member `tools`) as
 * a fixture entry: {type, name?, parameters?, ...the tool's other non-prose keys}. A tool without
 * a type (Anthropic's client tools, MCP) is a "function".
 */
export function fixtureTool(tool) {
  const t = tool.type === "function" && tool.function ? { type: "function", ...tool.function } : tool;
  const out = { type: t.type ?? "function" };
  if (t.name !== undefined) out.name = t.name;
  for (const k of SCHEMA_KEYS) if (t[k] !== undefined) out.parameters = stripSchema(t[k]);
  for (const [k, v] of Object.entries(t)) {
    if (k === "type" || k === "name" || k === "function" || SCHEMA_KEYS.includes(k) || TOOL_PROSE.has(k)) continue;
    out[k] = k === "tools" && Array.isArray(v) ? v.map(fixtureTool) : v;
  }
  return out;
}

/** The tools of several captures, each name once (the first seen); a name seen with another shape is an error. */
export function unionTools(lists) {
  const byKey = new Map();
  for (const list of lists)
    for (const tool of list) {
      const key = `${tool.type}:${tool.name ?? ""}`;
      const seen = byKey.get(key);
      if (!seen) byKey.set(key, tool);
      else if (JSON.stringify(seen) !== JSON.stringify(tool))
        throw new Error(`tool ${key} was captured with two different shapes; capture the runs apart`);
    }
  return [...byKey.values()];
}
