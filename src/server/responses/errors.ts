// Errors of the engine on /v1/responses (a prompt too long, max_tokens too small, a schema it
// cannot enforce) name chat completions' fields; here they name them as the Responses API spells
// them (max_output_tokens, input, tools[i].parameters, text.format.schema). The request's own checks (request.ts) use
// these names already, so only what the backend throws passes through here.
import { ApiError, toApiError } from "../errors.js";
import { routeSchemaPaths } from "../schema-paths.js";

const renamedTools = (text: string) =>
  text.replace(/(tools\[\d+\])\.function\./g, "$1.").replace(/(tools\[\d+\])\.function\b/g, "$1");

/**
 * max_tokens is renamed only in the error about it: elsewhere the word may be the request's own
 * (a tool's property named max_tokens, which a schema error's path and message quote as given).
 */
const renamed = (text: string, param: string | null) =>
  param === "max_tokens" ? renamedTools(text).replace(/\bmax_tokens\b/g, "max_output_tokens") : renamedTools(text);

const PARAMS: Record<string, string> = { messages: "input", response_format: "text.format" };

export function responsesError(err: unknown): ApiError {
  const e = toApiError(err);
  const param = e.param === null ? null : (PARAMS[e.param] ?? renamed(e.param, e.param));
  const message = routeSchemaPaths(renamed(e.message, e.param), "responses", "chat");
  return new ApiError(e.status, message, { type: e.type, param, code: e.code, headers: e.headers });
}
