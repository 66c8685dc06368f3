// The HTTP server around a chat backend: slots, the app, listening, and closing in order (waiting
// requests turned away, running ones stopped, connections closed, then the backend disposed).
import type { LlamaModel } from "../engine/model.js";
import type { UpstreamState } from "../gateway/pool.js";
import { buildApp } from "./app.js";
import type { ChatBackend } from "../engine/chat-backend.js";
import type { ConnectionLimits } from "./connections.js";
import { ApiError } from "./errors.js";
import type { HostPolicy } from "./hosts.js";
import type { ServerOptions, ToolmaskServer } from "./options.js";
import { checkCorsOrigins } from "./cors.js";
import { checkAliases } from "./model-names.js";
import { pathRedactor } from "./redact.js";
import { Slots } from "./slots.js";
import { telling } from "./notices.js";

/** ServerOptions.keepaliveMs when not given. */
export const DEFAULT_KEEPALIVE_MS = 5_000;

export interface Served {
  backend: ChatBackend;
  /** Requests running at once. */
  parallel: number;
  modelId: string;
  /** A path error messages must not reveal (the model's). */
  redactPath: string;
  model: LlamaModel | undefined;
  upstreams: readonly UpstreamState[] | undefined;
  /** Frees what the server owns, after its connections closed. */
  dispose: () => void;
}

export async function listen(
  options: ServerOptions,
  limits: ConnectionLimits,
  host: string,
  hosts: HostPolicy,
  served: Served,
): Promise<ToolmaskServer> {
  const slots = new Slots(served.parallel, options.maxQueue ?? 64);
  const active = new Set<AbortController>();
  let closing = false;
  const app = buildApp({
    backend: telling(served.backend, options.onNotice),
    slots,
    active,
    modelId: served.modelId,
    modelAliases: checkAliases(options.modelAliases, served.modelId),
    limits,
    hosts,
    redact: pathRedactor(served.redactPath, served.modelId),
    dialect: options.dialect,
    temperature: options.temperature,
    fastForward: options.fastForward ?? true,
    strictFormats: options.strictFormats ?? false,
    keepaliveMs: options.keepaliveMs ?? DEFAULT_KEEPALIVE_MS,
    cachePrompt: options.cachePrompt ?? true,
    apiKey: options.apiKey,
    bodyLimit: options.bodyLimit ?? 8 * 1024 * 1024,
    onError: options.onError,
    closing: () => closing,
    upstreams: served.upstreams,
    cors: checkCorsOrigins(options.cors),
  });
  await app.listen({ host, port: options.port ?? 8080 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : (options.port ?? 8080);
  const shown = host.includes(":") ? `[${host}]` : host;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${shown}:${port}`,
    port,
    model: served.model,
    upstreams: served.upstreams,
    parallel: slots.size,
    maxQueue: slots.maxQueue,
    close: () =>
      (closed ??= (async () => {
        closing = true;
        slots.rejectWaiting(new ApiError(503, "the server is shutting down", { code: "server_closing" }));
        for (const ctl of active) ctl.abort(new Error("the server is shutting down"));
        const closed = app.close(); // stops accepting connections
        // Stopped generations still send their last words (a 503, an error event); then every
        // connection goes, including keep-alive ones a client opened but never used.
        for (let waited = 0; active.size > 0 && waited < 5000; waited += 10)
          await new Promise((r) => setTimeout(r, 10));
        await new Promise((r) => setTimeout(r, 50));
        app.server.closeAllConnections();
        await closed;
        served.dispose();
      })()),
  };
}
