// Tool sets the parser and dialect suites share.
export const fn = (
  name: string,
  properties: Record<string, unknown>,
  required: string[] = Object.keys(properties),
) => ({ type: "function" as const, function: { name, parameters: { type: "object", properties, required } } });

/** Seed 000's client tools: read (1 required), write (2), edit (3; new_string "" is a deletion). */
export const FILE_TOOLS = [
  fn("read", { path: { type: "string" } }),
  fn("write", { path: { type: "string" }, content: { type: "string" } }),
  fn("edit", { path: { type: "string" }, old_string: { type: "string" }, new_string: { type: "string" } }),
];

/** Typed parameters (seed 003): strings stay as generated, the rest follow the schema. */
export const TYPED_TOOLS = [
  fn(
    "configure",
    {
      label: { type: "string" },
      count: { type: "integer" },
      ratio: { type: "number" },
      enabled: { type: "boolean" },
      options: { type: "object", properties: { a: { type: "integer" } } },
      tags: { type: "array", items: { type: "string" } },
      mode: { type: "string", enum: ["fast", "safe"] },
    },
    ["label"],
  ),
];
