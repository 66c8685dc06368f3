// Errors of the engine on /v1/responses (a prompt too long, max_tokens too small, a schema it
// cannot enforce) name chat completions' fields; here they name them as the Responses API spells
// them (max_output_tokens, input, tools[i].parameters). The request's own checks (request.ts) use
// these names already, so only what the backend throws passes through here.
import { ApiError, toApiError } from "../errors.js";

const renamed = (text: string) =>
  text
    .replace(/(tools\[\d+\])\.function\./g, "$1.")
    .replace(/(tools\[\d+\])\.function\b/g, "$1")
    .replace(/\bmax_tokens\b/g, "max_output_tokens");

export function responsesError(err: unknown): ApiError {
  const e = toApiError(err);
  const param = e.param === null ? null : e.param === "messages" ? "input" : renamed(e.param);
  return new ApiError(e.status, renamed(e.message), { type: e.type, param, code: e.code, headers: e.headers });
}
