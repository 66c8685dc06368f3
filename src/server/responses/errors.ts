// Errors of the engine on /v1/responses (a prompt too long, max_tokens too small, a schema it
// cannot enforce) name chat completions' fields; here they name them as the Responses API spells
// them (max_output_tokens, input, tools[i].parameters). The request's own checks (request.ts) use
// these names already, so only what the backend throws passes through here.
import { ApiError, toApiError } from "../errors.js";

const renamedTools = (text: string) =>
  text.replace(/(tools\[\d+\])\.function\./g, "$1.").replace(/(tools\[\d+\])\.function\b/g, "$1");

/**
 * max_tokens is renamed only in the error about it: elsewhere the word may be the request's own
 * (a tool's property named max_tokens, which a schema error's path and message quote as given).
 */
const renamed = (text: string, param: string | null) =>
  param === "max_tokens" ? renamedTools(text).replace(/\bmax_tokens\b/g, "max_output_tokens") : renamedTools(text);

export function responsesError(err: unknown): ApiError {
  const e = toApiError(err);
  const param = e.param === null ? null : e.param === "messages" ? "input" : renamed(e.param, e.param);
  return new ApiError(e.status, renamed(e.message, e.param), { type: e.type, param, code: e.code, headers: e.headers });
}
