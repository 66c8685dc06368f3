// `toolmask generate --schema FILE`: the file's JSON Schema as the response format (checked and
// lowered before the model loads), and what is printed: the parsed object, or an error saying why
// the answer holds none.
import { resolveRequest } from "../dialects/options.js";
import type { ResponseFormat } from "../dialects/response-format.js";
import type { GenerateResult } from "../engine/generate.js";
import { checkToolLimits } from "../parser/tool-limits.js";
import { readJson } from "./args.js";
import { CliError } from "./errors.js";

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * The response format of a schema file: a JSON Schema object, or a chat `response_format`
 * (`{"type": "json_schema", "json_schema": {"name", "schema"}}`) holding one. A schema the lowering
 * refuses is a CliError naming the file and the path in it.
 */
export function readSchema(path: string): ResponseFormat {
  const j = readJson(path, "schema file");
  if (!isObj(j))
    throw new CliError(`schema file ${path} must hold a JSON Schema object, got ${JSON.stringify(j)?.slice(0, 80)}`);
  const wrapped = j.type === "json_schema" && isObj(j.json_schema) ? j.json_schema : undefined;
  const schema = wrapped ? wrapped.schema : j;
  if (!isObj(schema))
    throw new CliError(
      `schema file ${path}: json_schema.schema must be a JSON Schema object, got ${JSON.stringify(schema)}`,
    );
  const name = typeof wrapped?.name === "string" ? wrapped.name : undefined;
  const format: ResponseFormat = { type: "json_schema", schema, ...(name ? { name } : {}) };
  try {
    checkToolLimits(resolveRequest({ dialect: "generic", responseFormat: format }));
  } catch (e) {
    throw new CliError(`schema file ${path}: ${(e as Error).message}`);
  }
  return format;
}

/** The text printed for `r`: the parsed object as JSON; a CliError when the answer holds none. */
export function structuredOutput(r: Omit<GenerateResult, "tokens">, maxTokens: number): string {
  const s = r.structured;
  if (s?.status === "valid")
    // A value no plain JS value holds as written (a number past a double) is printed as written.
    return "parsed" in r ? JSON.stringify(r.parsed, null, 2) : (r.message.content ?? "").trim();
  if (s?.status === "calls") return JSON.stringify(r, null, 2);
  if (s?.status === "cut")
    throw new CliError(
      `the answer was cut at --max-tokens ${maxTokens} before its JSON ended (finishReason "length"); raise --max-tokens`,
    );
  throw new CliError(`the answer holds no JSON that fits the schema: ${s?.reason ?? "no verdict"}`);
}
