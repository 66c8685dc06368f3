// Errors on /v1/messages in Anthropic's shape, {type: "error", error: {type, message}}, with its
// error type for each status, so the @anthropic-ai/sdk raises the matching class. The statuses are
// ours (503 while shutting down, where Anthropic says 529 when overloaded). The engine's messages
// name OpenAI's tool fields; here they are named as the request sent them.
import type { ApiError } from "../errors.js";
import { routeSchemaPaths } from "../schema-paths.js";

export interface AnthropicErrorBody {
  type: "error";
  error: { type: string; message: string };
}

const TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  503: "overloaded_error",
  529: "overloaded_error",
};

export function anthropicErrorType(status: number): string {
  return TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
}

/**
 * tools[i].function.parameters → tools[i].input_schema, tools[i].function.name → tools[i].name,
 * response_format.json_schema.schema → output_config.format.schema.
 */
const anthropicNames = (message: string) =>
  routeSchemaPaths(message, "messages", "chat")
    .replace(/(tools\[\d+\])\.function\.parameters/g, "$1.input_schema")
    .replace(/(tools\[\d+\])\.function\.name/g, "$1.name")
    .replace(/(tools\[\d+\])\.function/g, "$1");

export function anthropicErrorBody(e: ApiError, redact: (text: string) => string): AnthropicErrorBody {
  return { type: "error", error: { type: anthropicErrorType(e.status), message: anthropicNames(redact(e.message)) } };
}
