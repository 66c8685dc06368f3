// The response format (structured outputs): the answer's content is one JSON value that fits a
// schema. Resolved once onto the ResolvedRequest (options.ts); the grammar holds the content to
// `responseFormatNode` (grammar-content.ts), the same JSON-Schema lowering as tool arguments; the
// parser gives its verdict on the content with the same node (src/parser/structured.ts).

/** What `generate({ responseFormat })` takes: OpenAI's chat `response_format` with the schema unwrapped. */
export type ResponseFormat =
  | { type: "text" }
  | { type: "json_object" }
  | { type: "json_schema"; schema: Record<string, unknown>; name?: string; strict?: boolean };

/** The response format of a request that asks for JSON ("text" resolves to none). */
export interface ResolvedResponseFormat {
  type: "json_schema" | "json_object";
  /** The schema the content is held to (`{"type": "object"}` for json_object). */
  schema: Record<string, unknown>;
  name?: string;
  /** Where the schema sits in the request: schema errors name paths from here. */
  path: string;
}

/** A response format of the wrong shape (the schema's own refusals are the lowering's errors). */
export class ResponseFormatError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = "ResponseFormatError";
  }
}

const PATH = "responseFormat";
const isObj = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * Checks the shape of a response format; undefined for none (absent, or `{type: "text"}`). Schema
 * paths start at `${path}.schema`.
 */
export function resolveResponseFormat(v: unknown, path = PATH): ResolvedResponseFormat | undefined {
  if (v === undefined || v === null) return undefined;
  const shape = `{"type": "json_schema", "schema": {…}}, {"type": "json_object"} or {"type": "text"}`;
  if (!isObj(v)) throw new ResponseFormatError(`${path} must be ${shape}, got ${JSON.stringify(v)}`);
  if (v.type === "text") return undefined;
  if (v.type === "json_object") return { type: "json_object", schema: { type: "object" }, path: `${path}.schema` };
  if (v.type !== "json_schema")
    throw new ResponseFormatError(
      `${path}.type must be "json_schema", "json_object" or "text", got ${JSON.stringify(v.type)}`,
    );
  if (!isObj(v.schema))
    throw new ResponseFormatError(
      `${path}.schema must be a JSON schema object, got ${JSON.stringify(v.schema) ?? "nothing"}`,
    );
  if (v.name !== undefined && typeof v.name !== "string")
    throw new ResponseFormatError(`${path}.name must be a string, got ${JSON.stringify(v.name)}`);
  if (v.strict !== undefined && v.strict !== null && typeof v.strict !== "boolean")
    throw new ResponseFormatError(`${path}.strict must be true or false, got ${JSON.stringify(v.strict)}`);
  return { type: "json_schema", schema: v.schema, ...(v.name ? { name: v.name } : {}), path: `${path}.schema` };
}
