// Where each route's request holds the response format's schema, and the library's paths in an
// error message respelled so: the library names them from `responseFormat.schema` (the chat route's
// errors.ts respells them for chat completions, the Responses and Messages routes from there).

/** Where each route's request holds the schema (the library's path is `responseFormat.schema`). */
export const SCHEMA_PATHS = {
  chat: "response_format.json_schema.schema",
  responses: "text.format.schema",
  messages: "output_config.format.schema",
} as const;

const LIBRARY = "responseFormat.schema";

/**
 * The schema paths in a message spelled from `from` (the library's `responseFormat.schema`, or a
 * route's) as `to` spells them. Only where a path starts: a tool property named responseFormat or
 * response_format keeps its name.
 */
export function routeSchemaPaths(
  text: string,
  to: keyof typeof SCHEMA_PATHS,
  from: keyof typeof SCHEMA_PATHS | "library" = "library",
): string {
  const was = from === "library" ? LIBRARY : SCHEMA_PATHS[from];
  const at = new RegExp(`(?<![\\w.\\]$])${was.replaceAll(".", "\\.")}`, "g");
  return text.replace(at, SCHEMA_PATHS[to]);
}
