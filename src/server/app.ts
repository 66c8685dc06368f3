// The HTTP application: routes, bearer-key check, and every error (ours, fastify's, unknown
// routes) in OpenAI's shape. Fastify carries the HTTP details we would otherwise hand-write and
// get wrong: body size limits checked while reading, content-type matching, JSON parsing that
// refuses __proto__ poisoning, keep-alive handling, and closing idle connections on shutdown.
// Node's HTTP server enforces the connection limits (connections.ts); requests it refuses itself
// are answered by client-errors.ts, other methods on known routes by methods.ts.
import { createHash, timingSafeEqual } from "node:crypto";
import Fastify, { type FastifyInstance } from "fastify";
import { anthropicErrorBody, anthropicMessages, countTokens } from "./anthropic/route.js";
import { chatCompletions } from "./chat/route.js";
import { responses } from "./responses/route.js";
import type { ChatContext } from "./chat-context.js";
import { clientErrorHandler } from "./client-errors.js";
import { enableCors } from "./cors.js";
import { fastifyLimitOptions, type ConnectionLimits } from "./connections.js";
import { ApiError, toApiError } from "./errors.js";
import { checkHost, type HostPolicy } from "./hosts.js";
import { parseJsonAsUtf8 } from "./json-body.js";
import { refuseOtherMethods } from "./methods.js";
import { knownNames, modelNotFound } from "./model-names.js";
import type { UpstreamState } from "../gateway/pool.js";

export interface AppOptions extends ChatContext {
  apiKey: string | undefined;
  bodyLimit: number;
  limits: ConnectionLimits;
  /** Host header names answered (hosts.ts). */
  hosts: HostPolicy;
  /** true once close() began: /health says 503 and new generations are turned away. */
  closing: () => boolean;
  /** Origins answered cross-origin (cors.ts); undefined: none. */
  cors?: readonly string[] | undefined;
  /** A gateway's upstreams (undefined: the model is served here): /health lists them. */
  upstreams?: readonly UpstreamState[] | undefined;
}

const ROUTES =
  "POST /v1/chat/completions, POST /v1/responses, POST /v1/messages, POST /v1/messages/count_tokens, GET /v1/models, GET /health, GET /";

/** A route's own error shape: the body an ApiError is answered with on it. */
export interface RouteConfig {
  errorBody?: (e: ApiError, redact: (text: string) => string) => unknown;
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/** The key as `Authorization: Bearer <key>` (OpenAI's clients) or `x-api-key: <key>` (Anthropic's). */
function checkKey(authorization: string | undefined, apiKeyHeader: string | string[] | undefined, key: string): void {
  const bearer = /^Bearer\s+(.+)$/i.exec(authorization ?? "")?.[1];
  const sent = bearer ?? (typeof apiKeyHeader === "string" ? apiKeyHeader : undefined);
  // Compared as digests: equal length, constant time, whatever the client sent.
  if (sent === undefined || !timingSafeEqual(digest(sent.trim()), digest(key)))
    throw new ApiError(
      401,
      sent !== undefined
        ? "Incorrect API key provided."
        : "Missing API key: send it as Authorization: Bearer <key> (or as x-api-key: <key>).",
      {
        code: "invalid_api_key",
        headers: { "www-authenticate": "Bearer" },
      },
    );
}

export function buildApp(o: AppOptions): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: o.bodyLimit,
    forceCloseConnections: "idle",
    return503OnClosing: false,
    ...fastifyLimitOptions(o.limits),
    clientErrorHandler: clientErrorHandler(o.limits),
  });
  app.server.maxConnections = o.limits.maxConnections;
  // Only JSON bodies, in UTF-8: a text/plain body gets 415, not a confusing "must be an object".
  app.removeContentTypeParser("text/plain");
  parseJsonAsUtf8(app);
  const sealRoutes = refuseOtherMethods(app);
  if (o.cors) enableCors(app, o.cors);

  // The Host check first: a page that reached the server by DNS rebinding learns nothing, not
  // even whether a key is needed.
  // Added once the CORS plugin (registered above, loaded first) has added its hook: CORS headers go
  // on these checks' refusals too, and a preflight is answered before them.
  app.after(() =>
    app.addHook("onRequest", async (req) => {
      checkHost(req.headers.host, req.raw.httpVersion, o.hosts);
      // "/" and /health say what is served and whether it is up, nothing else: no key is asked there.
      if (o.apiKey !== undefined && req.url !== "/health" && req.url !== "/")
        checkKey(req.headers.authorization, req.headers["x-api-key"], o.apiKey);
    }),
  );

  // Each route answers errors in its API's shape (config.errorBody); OpenAI's by default.
  app.setErrorHandler((err, req, reply) => {
    const e = toApiError(err);
    if (e.status >= 500) o.onError?.(err);
    const shape = (req.routeOptions.config as RouteConfig | undefined)?.errorBody;
    return reply
      .status(e.status)
      .headers(e.headers)
      .send(shape ? shape(e, o.redact) : e.body(o.redact));
  });
  app.setNotFoundHandler((req, reply) => {
    const e = new ApiError(404, `no route ${req.method} ${req.url.split("?")[0]}; this server serves ${ROUTES}`, {
      code: "unknown_url",
    });
    return reply.status(404).send(e.body(o.redact));
  });

  app.post("/v1/chat/completions", async (req, reply) => {
    if (o.closing())
      throw new ApiError(503, "the server is shutting down", { type: "server_error", code: "server_closing" });
    return chatCompletions(req, reply, o);
  });

  // Anthropic's Messages API (src/server/anthropic/), its errors in Anthropic's shape.
  const messagesConfig: RouteConfig = { errorBody: anthropicErrorBody };
  app.post("/v1/messages", { config: messagesConfig }, async (req, reply) => {
    if (o.closing())
      throw new ApiError(503, "the server is shutting down", { type: "server_error", code: "server_closing" });
    return anthropicMessages(req, reply, o);
  });
  app.post("/v1/messages/count_tokens", { config: messagesConfig }, async (req, reply) => {
    if (o.closing())
      throw new ApiError(503, "the server is shutting down", { type: "server_error", code: "server_closing" });
    return countTokens(req, reply, o);
  });

  // OpenAI's Responses API (src/server/responses/), errors in OpenAI's shape.
  app.post("/v1/responses", async (req, reply) => {
    if (o.closing())
      throw new ApiError(503, "the server is shutting down", { type: "server_error", code: "server_closing" });
    return responses(req, reply, o);
  });

  // The served model under each of its names (model-names.ts).
  const modelEntry = (id: string) => ({ id, object: "model", created: 0, owned_by: "toolmask" });
  app.get("/v1/models", async () => ({ object: "list", data: knownNames(o).map(modelEntry) }));
  app.get<{ Params: { id: string } }>("/v1/models/:id", async (req) => {
    const id = req.params.id;
    if (!knownNames(o).includes(id)) throw modelNotFound(o, id);
    return modelEntry(id);
  });

  // A gateway none of whose upstreams is healthy says 503 "no_upstream", so a load balancer in
  // front of several gateways stops sending it requests it could only answer 502.
  app.get("/health", async (_req, reply) => {
    const slots = { total: o.slots.size, busy: o.slots.busy, queued: o.slots.queued, max_queue: o.slots.maxQueue };
    const upstreams = o.upstreams?.map((u) => ({ url: u.url, healthy: u.healthy, outstanding: u.outstanding }));
    const status = o.closing() ? "closing" : upstreams && !upstreams.some((u) => u.healthy) ? "no_upstream" : "ok";
    return reply
      .status(status === "ok" ? 200 : 503)
      .send({ status, model: o.modelId, slots, ...(upstreams ? { upstreams } : {}) });
  });
  // What a client's connectivity check asks first (Claude Code sends HEAD /; fastify answers HEAD
  // for every GET route with its headers).
  app.get("/", async () => ({
    object: "toolmask.server",
    status: o.closing() ? "closing" : "ok",
    routes: ROUTES.split(", "),
  }));
  sealRoutes();
  return app;
}
