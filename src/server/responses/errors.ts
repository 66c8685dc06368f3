// Errors of the engine on /v1/responses (a prompt too long, max_tokens too small, a schema it
// cannot enforce) name chat completions' fields; here they name them as the Responses API spells
// them (max_output_tokens, input, tools[i].parameters, text.format.schema). The request's own checks (request.ts) use
// these names already, so only what the backend throws passes through here.
import { ApiError, toApiError } from "../errors.js";
import { routeSchemaPaths } from "../schema-paths.js";

/** `tools[k].function` as the Responses request spells where tool k is (`paths[k]`: `tools[4].tools[1]` in a namespace). */
const renamedTools = (text: string, paths: readonly string[]) =>
  text.replace(/tools\[(\d+)\](\.function\b)?/g, (whole, k: string, fn: string | undefined) =>
    fn === undefined && paths.length === 0 ? whole : (paths[Number(k)] ?? `tools[${k}]`),
  );

/**
 * max_tokens is renamed only in the error about it: elsewhere the word may be the request's own
 * (a tool's property named max_tokens, which a schema error's path and message quote as given).
 */
const renamed = (text: string, param: string | null, paths: readonly string[]) =>
  param === "max_tokens"
    ? renamedTools(text, paths).replace(/\bmax_tokens\b/g, "max_output_tokens")
    : renamedTools(text, paths);

const PARAMS: Record<string, string> = { messages: "input", response_format: "text.format" };

export function responsesError(err: unknown, paths: readonly string[] = []): ApiError {
  const e = toApiError(err);
  const param = e.param === null ? null : (PARAMS[e.param] ?? renamed(e.param, e.param, paths));
  const message = routeSchemaPaths(renamed(e.message, e.param, paths), "responses", "chat");
  return new ApiError(e.status, message, { type: e.type, param, code: e.code, headers: e.headers });
}
