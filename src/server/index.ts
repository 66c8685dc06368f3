// startServer(): the OpenAI-compatible server as an API (the `serve` command wraps it).
import { basename } from "node:path";
import { getDialect } from "../dialects/index.js";
import { loadModel } from "../engine/model.js";
import { localBackend } from "../engine/chat-backend.js";
import { startGatewayServer } from "./gateway-start.js";
import { listen } from "./listen.js";
import { setGrammarCacheBytes } from "../grammar/cache.js";
import { connectionLimits } from "./connections.js";
import { hostPolicy } from "./hosts.js";
import { checkCorsOrigins } from "./cors.js";
import { checkAliases } from "./model-names.js";
import type { ServerOptions, ToolmaskServer } from "./options.js";

export type { GatewayOptions, ServerOptions, ToolmaskServer } from "./options.js";

function checkOptions(o: ServerOptions): void {
  if (!o || typeof o !== "object") throw new TypeError("startServer({ modelPath } or { model }) needs options");
  const given = [o.model, o.modelPath, o.upstreams].filter((v) => v !== undefined).length;
  if (given !== 1)
    throw new TypeError(
      "startServer needs exactly one of model (a loaded LlamaModel), modelPath (a .gguf file) and upstreams (a gateway)",
    );
  if (o.port !== undefined && !(Number.isInteger(o.port) && o.port >= 0 && o.port <= 65535))
    throw new RangeError(`port must be an integer from 0 to 65535, got ${o.port}`);
  if (o.apiKey !== undefined && (typeof o.apiKey !== "string" || o.apiKey.length === 0))
    throw new TypeError("apiKey must be a non-empty string");
  checkAliases(o.modelAliases, o.modelId);
  checkCorsOrigins(o.cors);
  if (o.dialect !== undefined) getDialect(o.dialect); // an unknown name fails now, not on every request
  if (o.temperature !== undefined && !(typeof o.temperature === "number" && o.temperature >= 0 && o.temperature <= 2))
    throw new RangeError(`temperature must be a number from 0 to 2, got ${JSON.stringify(o.temperature)}`);
  if (o.fastForward !== undefined && typeof o.fastForward !== "boolean")
    throw new TypeError(`fastForward must be true or false, got ${JSON.stringify(o.fastForward)}`);
  if (o.cachePrompt !== undefined && typeof o.cachePrompt !== "boolean")
    throw new TypeError(`cachePrompt must be true or false, got ${JSON.stringify(o.cachePrompt)}`);
  if (o.cachePrompt !== undefined && o.upstreams !== undefined)
    throw new TypeError(
      "cachePrompt goes with model or modelPath: a gateway's upstreams cache prompts by their own settings (llama-server: --cache-prompt / --no-cache-prompt)",
    );
  if (o.strictFormats !== undefined && typeof o.strictFormats !== "boolean")
    throw new TypeError(`strictFormats must be true or false, got ${JSON.stringify(o.strictFormats)}`);
  if (
    o.keepaliveMs !== undefined &&
    !(Number.isInteger(o.keepaliveMs) && o.keepaliveMs >= 0 && o.keepaliveMs <= 2 ** 31 - 1)
  )
    throw new RangeError(
      `keepaliveMs must be an integer from 0 to ${2 ** 31 - 1} (milliseconds; 0: none), got ${o.keepaliveMs}`,
    );
  if (o.bodyLimit !== undefined && !(Number.isInteger(o.bodyLimit) && o.bodyLimit > 0))
    throw new RangeError(`bodyLimit must be a positive integer (bytes), got ${o.bodyLimit}`);
  if (o.grammarCacheBytes !== undefined && !(Number.isInteger(o.grammarCacheBytes) && o.grammarCacheBytes >= 0))
    throw new RangeError(`grammarCacheBytes must be a non-negative integer (bytes), got ${o.grammarCacheBytes}`);
  if (o.host !== undefined && (typeof o.host !== "string" || o.host === ""))
    throw new TypeError("host must be a non-empty string (an address or name to bind)");
}

export async function startServer(options: ServerOptions): Promise<ToolmaskServer> {
  checkOptions(options);
  if (options.grammarCacheBytes !== undefined) setGrammarCacheBytes(options.grammarCacheBytes);
  // Checked before a model is loaded: a wrong option fails at once.
  const limits = connectionLimits(options);
  const host = options.host ?? "127.0.0.1";
  const hosts = hostPolicy(host, options.allowedHosts);
  if (options.upstreams !== undefined) return startGatewayServer(options, limits, host, hosts);
  const owned = options.model === undefined;
  const model =
    options.model ??
    (await loadModel({
      ...(options.parallel !== undefined ? { parallel: options.parallel } : {}),
      ...options.load,
      path: options.modelPath!,
    }));
  try {
    return await listen(options, limits, host, hosts, {
      backend: localBackend(model),
      // One slot per sequence the model decodes together: more would only wait inside the engine.
      parallel: options.parallel ?? model.parallel,
      modelId: options.modelId ?? basename(model.path).replace(/\.gguf$/i, ""),
      redactPath: model.path,
      model,
      upstreams: undefined,
      dispose: () => {
        if (owned) model.dispose();
      },
    });
  } catch (err) {
    if (owned) model.dispose();
    throw err;
  }
}
