// The response format as each API spells it, read into generate()'s `responseFormat`
// (src/dialects/response-format.ts): chat completions' `response_format`, the Responses API's
// `text.format`, Messages' `output_config.format`. A shape error is a 400 naming the field; a schema
// the lowering refuses is refused later, as tool schemas are, its path spelled as the route's
// request spells the schema (schema-paths.ts).
import type { ResponseFormat } from "../dialects/response-format.js";
import { invalidParam } from "./errors.js";
import { SCHEMA_PATHS } from "./schema-paths.js";
import { given, isObj, kind, shown } from "./values.js";

const CODE = "invalid_response_format";

function schemaAt(v: unknown, at: string): Record<string, unknown> {
  if (!isObj(v)) throw invalidParam(at, `${at} must be a JSON schema object, got ${kind(v)}`, CODE);
  return v;
}

function nameAt(v: unknown, at: string): string | undefined {
  if (!given(v)) return undefined;
  if (typeof v !== "string" || v.length > 64)
    throw invalidParam(at, `${at} must be a string of at most 64 characters, got ${shown(v)}`, CODE);
  return v;
}

function strictAt(v: unknown, at: string): boolean | undefined {
  if (!given(v)) return undefined;
  if (typeof v !== "boolean") throw invalidParam(at, `${at} must be true or false, got ${shown(v)}`, CODE);
  return v;
}

/**
 * `response_format`: {"type": "json_schema", "json_schema": {name, schema, strict?, description?}},
 * {"type": "json_object"} or {"type": "text"} (absent: text).
 */
export function chatResponseFormat(v: unknown): ResponseFormat | undefined {
  if (!given(v)) return undefined;
  const shape =
    '{"type": "json_schema", "json_schema": {"name", "schema"}}, {"type": "json_object"} or {"type": "text"}';
  if (!isObj(v)) throw invalidParam("response_format", `response_format must be ${shape}, got ${kind(v)}`, CODE);
  if (v.type === "text") return { type: "text" };
  if (v.type === "json_object") {
    // llama-server reads a schema here; OpenAI does not: a schema left unenforced would be a silent loss.
    if (given(v.schema))
      throw invalidParam(
        "response_format.schema",
        'response_format.schema is not read with {"type": "json_object"}; send {"type": "json_schema", "json_schema": {"name", "schema"}}',
        CODE,
      );
    return { type: "json_object" };
  }
  if (v.type !== "json_schema")
    throw invalidParam(
      "response_format.type",
      `response_format.type must be one of ${shape}, got ${shown(v.type)}`,
      CODE,
    );
  const j = v.json_schema;
  if (!isObj(j))
    throw invalidParam(
      "response_format.json_schema",
      `response_format.json_schema must be an object {"name", "schema", "strict"}, got ${kind(j)}`,
      CODE,
    );
  const name = nameAt(j.name, "response_format.json_schema.name");
  const strict = strictAt(j.strict, "response_format.json_schema.strict");
  return {
    type: "json_schema",
    // OpenAI's schema is optional: without one, any JSON value.
    schema: given(j.schema) ? schemaAt(j.schema, SCHEMA_PATHS.chat) : {},
    ...(name !== undefined ? { name } : {}),
    ...(strict !== undefined ? { strict } : {}),
  };
}

/** `text.format`: {"type": "json_schema", name, schema, strict?, description?}, {"type": "json_object"} or {"type": "text"}. */
export function responsesTextFormat(v: unknown): ResponseFormat | undefined {
  if (!given(v)) return undefined;
  const shape = '{"type": "json_schema", "name", "schema"}, {"type": "json_object"} or {"type": "text"}';
  if (!isObj(v)) throw invalidParam("text.format", `text.format must be ${shape}, got ${kind(v)}`, CODE);
  if (v.type === "text") return { type: "text" };
  if (v.type === "json_object") return { type: "json_object" };
  if (v.type !== "json_schema")
    throw invalidParam("text.format.type", `text.format.type must be one of ${shape}, got ${shown(v.type)}`, CODE);
  const name = nameAt(v.name, "text.format.name");
  const strict = strictAt(v.strict, "text.format.strict");
  return {
    type: "json_schema",
    schema: schemaAt(v.schema, SCHEMA_PATHS.responses),
    ...(name !== undefined ? { name } : {}),
    ...(strict !== undefined ? { strict } : {}),
  };
}

/** `output_config.format`: {"type": "json_schema", "schema"} (null or absent: text). */
export function messagesOutputFormat(v: unknown): ResponseFormat | undefined {
  if (!given(v)) return undefined;
  if (!isObj(v) || v.type !== "json_schema")
    throw invalidParam(
      isObj(v) ? "output_config.format.type" : "output_config.format",
      `output_config.format must be {"type": "json_schema", "schema"}, got ${isObj(v) ? `type ${shown(v.type)}` : kind(v)}`,
      CODE,
    );
  return { type: "json_schema", schema: schemaAt(v.schema, SCHEMA_PATHS.messages) };
}
