// Errors in OpenAI's shape: { error: { message, type, param, code } } with the status OpenAI uses,
// so clients (the openai SDK's APIError subclasses, retry logic on 429) react as they do upstream.
import { InvalidSchemaError, UnsupportedSchemaError } from "../grammar/json-schema/index.js";
import { EmptyGrammarError, GrammarLimitError } from "../grammar/errors.js";
import { EbnfExportError } from "../grammar/export/options.js";
import { ContextLengthError, MaxTokensTooSmallError } from "../engine/errors.js";
import { ToolDefinitionError } from "../dialects/tools.js";
import { ResponseFormatError } from "../dialects/response-format.js";
import { routeSchemaPaths } from "./schema-paths.js";
import { UnknownDialectError } from "../engine/detect-dialect.js";
import { ChatTemplateError } from "../templates/render.js";
import { dialects } from "../dialects/index.js";
import { UpstreamProtocolError } from "../gateway/engines/types.js";
import { UpstreamError } from "../gateway/pool.js";

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  readonly param: string | null;
  readonly code: string | null;
  /** Extra response headers (Retry-After, Allow, WWW-Authenticate). */
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    message: string,
    o: { type?: string; param?: string | null; code?: string | null; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.type = o.type ?? (status >= 500 ? "server_error" : "invalid_request_error");
    this.param = o.param ?? null;
    this.code = o.code ?? null;
    this.headers = o.headers ?? {};
  }

  /** The body to send; `redact` rewrites what the message must not reveal (redact.ts). */
  body(redact: (text: string) => string = (t) => t): OpenAIErrorBody {
    return { error: { message: redact(this.message), type: this.type, param: this.param, code: this.code } };
  }
}

export const invalidParam = (param: string, message: string, code: string | null = "invalid_value") =>
  new ApiError(400, message, { param, code });

/** Fastify's own request errors (body parsing, content type, size) in OpenAI's shape. */
function fromFastify(err: { code?: string; statusCode?: number; message: string }): ApiError | undefined {
  switch (err.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new ApiError(413, `${err.message}; send a smaller request or start the server with a larger bodyLimit`, {
        code: "request_too_large",
      });
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new ApiError(415, "the request body must be JSON: send it with Content-Type: application/json", {
        code: "unsupported_media_type",
      });
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new ApiError(400, "the request body is empty; send a JSON object", { code: "invalid_json" });
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new ApiError(400, `the request body is not valid JSON: ${err.message}`, { code: "invalid_json" });
  }
  if (err instanceof SyntaxError)
    return new ApiError(400, `the request body is not valid JSON: ${err.message}`, { code: "invalid_json" });
  if (typeof err.statusCode === "number" && err.statusCode >= 400 && err.statusCode < 500)
    return new ApiError(err.statusCode, err.message);
  return undefined;
}

/**
 * Errors generate() throws because of what the request asked (its tools, schemas, options, its
 * messages in the chat template, a prompt longer than the context) are the client's to fix: 400.
 * Anything else is ours: 500.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  // Fastify's errors first: some are RangeErrors (a body too large) that mean 413, not 400.
  const fastify =
    err &&
    typeof err === "object" &&
    typeof (err as { code?: unknown }).code === "string" &&
    (err as { code: string }).code.startsWith("FST_")
      ? fromFastify(err as { code: string; message: string })
      : undefined;
  if (fastify) return fastify;
  if (err instanceof UnknownDialectError)
    return new ApiError(
      400,
      `this model's chat template does not show how it writes tool calls, so requests with tools need the server started with --dialect NAME (one of ${dialects.join(", ")})`,
      { param: "tools", code: "unknown_dialect" },
    );
  if (err instanceof ChatTemplateError)
    return new ApiError(400, err.message, { param: "messages", code: "template_error" });
  if (err instanceof ToolDefinitionError)
    return new ApiError(400, err.message, { param: "tools", code: "invalid_tools" });
  // The response format's schema: its path as chat completions spells it (the other routes respell it).
  if (
    (err instanceof InvalidSchemaError || err instanceof UnsupportedSchemaError || err instanceof GrammarLimitError) &&
    err.path?.startsWith("responseFormat.")
  )
    return new ApiError(400, routeSchemaPaths(err.message, "chat"), {
      param: "response_format",
      code: err instanceof GrammarLimitError ? "grammar_too_large" : "invalid_response_format",
    });
  if (err instanceof ResponseFormatError)
    return new ApiError(400, routeSchemaPaths(err.message, "chat"), {
      param: "response_format",
      code: "invalid_response_format",
    });
  if (err instanceof InvalidSchemaError || err instanceof UnsupportedSchemaError)
    return new ApiError(400, err.message, { param: "tools", code: "invalid_tool_schema" });
  if (err instanceof ContextLengthError)
    return new ApiError(400, err.message, { param: "messages", code: "context_length_exceeded" });
  if (err instanceof MaxTokensTooSmallError)
    return new ApiError(
      400,
      err.message.replaceAll("maxTokens", "max_tokens").replaceAll("toolChoice", "tool_choice"),
      { param: "max_tokens", code: "max_tokens_too_small" },
    );
  // A gateway's upstream failed or answered what we cannot read: not the client's fault, not ours.
  if (err instanceof UpstreamError || err instanceof UpstreamProtocolError)
    return new ApiError(502, err.message, { type: "server_error", code: "upstream_error" });
  if (err instanceof GrammarLimitError)
    return new ApiError(400, err.message, { param: "tools", code: "grammar_too_large" });
  // A gateway's upstream takes the grammar as GBNF, Lark or EBNF text, which cannot say every tool
  // schema (an intersection too large to write out, a repetition past GBNF's bound): the tools' to change.
  if (err instanceof EbnfExportError)
    return new ApiError(400, err.message, { param: "tools", code: "grammar_not_exportable" });
  // The grammar of the tools and tool_choice accepts no answer at all (a schema that matches no
  // value is an InvalidSchemaError above, naming it).
  if (err instanceof EmptyGrammarError)
    return new ApiError(400, `the tools and tool_choice of this request allow no answer: ${err.message}`, {
      param: "tools",
      code: "invalid_tools",
    });
  // The engine's range checks (token ids outside the vocabulary, …); its TypeErrors are caught by
  // the request validator first, so one reaching here is our bug: 500.
  if (err instanceof RangeError) return new ApiError(400, err.message);
  if (err && typeof err === "object" && "message" in err) {
    const e = err as { code?: string; statusCode?: number; message: string };
    const f = fromFastify(e);
    if (f) return f;
    if (/context holds \d+/.test(e.message))
      return new ApiError(400, e.message, { param: "messages", code: "context_length_exceeded" });
    return new ApiError(500, e.message);
  }
  return new ApiError(500, String(err));
}
