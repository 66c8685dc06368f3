// startServer(): the OpenAI-compatible server as an API (the `serve` command wraps it).
import { basename } from "node:path";
import { getDialect } from "../dialects/index.js";
import { loadModel, type LlamaModel, type LoadModelOptions } from "../engine/model.js";
import { localBackend } from "./backend.js";
import { startGatewayServer, type GatewayOptions } from "./gateway-start.js";
import { listen } from "./listen.js";
import type { UpstreamState } from "../gateway/pool.js";
import { setGrammarCacheBytes } from "../grammar/cache.js";
import { connectionLimits } from "./connections.js";
import { hostPolicy } from "./hosts.js";
import { checkCorsOrigins } from "./cors.js";
import { checkAliases } from "./model-names.js";

export interface ServerOptions {
  /** A loaded model (the caller keeps ownership), or … */
  model?: LlamaModel;
  /** … the path of a GGUF to load (disposed when the server closes), or … */
  modelPath?: string;
  /** … upstream engines to serve through (a gateway: src/gateway/, docs/scale-out.md). */
  upstreams?: GatewayOptions;
  /** How to load `modelPath` (threads, contextSize, gpu, onProgress). */
  load?: Omit<LoadModelOptions, "path">;
  /** Default "127.0.0.1": reachable from this machine only. */
  host?: string;
  /**
   * Host header names answered (any port); others get 403 `host_not_allowed`, which keeps web pages
   * from reaching the server by DNS rebinding. localhost, 127.0.0.1 and [::1] are always accepted;
   * `["*"]` accepts any name. Default: only those (and `host`) when `host` is a loopback address,
   * any name otherwise (0.0.0.0, a LAN address).
   */
  allowedHosts?: string[];
  /** Milliseconds for a request's line and headers, from its first byte (or from connecting); 408 beyond. Default 10,000. */
  headersTimeout?: number;
  /** Milliseconds for the whole request, body included; 408 beyond. Generating the answer is not limited. Default 60,000. */
  requestTimeout?: number;
  /** Milliseconds a keep-alive connection stays open without a request (Node 20 adds 1 s). Default 5,000. */
  idleTimeout?: number;
  /** Connections open at once; one more is closed as soon as it is accepted. Default 256. */
  maxConnections?: number;
  /** Default 8080; 0 picks a free port (see `url`). */
  port?: number;
  /**
   * Generations decoding at once. Default: the model's `parallel` (the sequences its shared context
   * decodes together); with `modelPath` the model is loaded with this many sequences.
   */
  parallel?: number;
  /** Requests waiting for a slot beyond `parallel`; one more gets 429. Default 64. */
  maxQueue?: number;
  /** When set, every route but /health needs `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Largest request body in bytes (413 beyond). Default 8 MiB. */
  bodyLimit?: number;
  /** The model's name in responses and /v1/models. Default: the file name without .gguf. */
  modelId?: string;
  /**
   * Other names the model answers to (a client set up for "claude-sonnet-4-5" or "gpt-5" reaches it
   * under that name): listed in /v1/models, echoed in answers to requests that use them. With
   * aliases, a request naming neither the id nor an alias gets 404 model_not_found; without, any
   * name is served. Default none.
   */
  modelAliases?: string[];
  /**
   * Origins whose browser pages may call the server (CORS): ["https://app.example"], or ["*"] for
   * any. Default none: no cross-origin access (src/server/cors.ts).
   */
  cors?: string[];
  /** The tool-call dialect, when the chat template does not make it clear. */
  dialect?: string;
  /** false: sample every token, also the text the grammar forces (GenerateOptions.fastForward). Default true. */
  fastForward?: boolean;
  /**
   * true: a request whose tools name a "format" the grammar does not enforce is answered 400
   * (GenerateOptions.strictFormats). Default false: the format is an annotation and `onNotice` hears of it.
   */
  strictFormats?: boolean;
  /**
   * Bytes the process's grammar memory may take: compiled grammars, the parser's value grammars and
   * idle shapes (setGrammarCacheBytes: process-wide, so it also applies to other servers and
   * generate() calls in this process). Default 256 MiB.
   */
  grammarCacheBytes?: number;
  /** Sees errors the server answered with a 5xx. */
  onError?: (err: unknown) => void;
  /** Hears each request's notices (GenerateResult.notices), once per request: the `serve` command logs them. */
  onNotice?: (notice: string) => void;
}

export interface ToolmaskServer {
  /** http://host:port, with the port actually bound. */
  readonly url: string;
  readonly port: number;
  /** The model loaded or given; undefined for a gateway. */
  readonly model: LlamaModel | undefined;
  /** A gateway's upstreams, as its health checks and requests last saw them. */
  readonly upstreams: readonly UpstreamState[] | undefined;
  readonly parallel: number;
  readonly maxQueue: number;
  /** Stops running generations, turns away waiting ones, closes connections (and the model it loaded). */
  close(): Promise<void>;
}

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
  if (o.fastForward !== undefined && typeof o.fastForward !== "boolean")
    throw new TypeError(`fastForward must be true or false, got ${JSON.stringify(o.fastForward)}`);
  if (o.strictFormats !== undefined && typeof o.strictFormats !== "boolean")
    throw new TypeError(`strictFormats must be true or false, got ${JSON.stringify(o.strictFormats)}`);
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
