// The options of startServer() and the handle it returns: the local engine's and a gateway's.
import type { EngineName } from "../gateway/engines/types.js";
import type { GrammarSyntax } from "../gateway/engines/grammar-text.js";
import type { UpstreamState } from "../gateway/pool.js";
import type { LlamaModel, LoadModelOptions } from "../engine/model.js";

export interface GatewayOptions {
  /** Upstream base URLs, e.g. ["http://127.0.0.1:8081", "http://127.0.0.1:8082"]. */
  urls: string[];
  engine: EngineName;
  /**
   * The served model's tokenizer and chat template: its .gguf file or Hugging Face model folder.
   * Needed by every engine but "openai" (which renders its own prompt).
   */
  tokenizer?: string;
  /** The model name OpenAI-style upstreams expect (vLLM's --served-model-name). Default: modelId. */
  upstreamModel?: string;
  /** The grammar syntax sent to vLLM and SGLang: "ebnf" (XGrammar, their default backend) or "lark" (llguidance). */
  grammarSyntax?: GrammarSyntax;
  /** The upstream's context size: messages beyond it are refused, and it is the default max_tokens. Default 4096. */
  contextSize?: number;
  /** Requests forwarded at once (more wait in the queue). Default 16 per upstream. */
  parallel?: number;
  /** Sent to upstreams as `Authorization: Bearer …`. */
  apiKey?: string;
  /** Milliseconds between health checks. Default 2,000. */
  healthInterval?: number;
  /**
   * llama-server, tool_choice "auto": false sends the whole grammar (content constrained as by our
   * own mask) instead of a lazy one triggered by the call's opening text. Default true.
   */
  lazyGrammar?: boolean;
  /**
   * Bytes an upstream answer may take (a whole body, a stream's answer text or one of its events);
   * past it the request is answered 502 naming the cap. Default: sized from the request's
   * max_tokens (src/gateway/body-cap.ts: 1 MiB + twice the request + 1 KiB per token).
   */
  maxBodyBytes?: number;
}

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
  /**
   * The sampling temperature of a request that sends none (0: greedy; llama-server's --temp).
   * Default 0.8 (GenerateOptions.temperature). A request's own temperature wins.
   */
  temperature?: number;
  /** false: sample every token, also the text the grammar forces (GenerateOptions.fastForward). Default true. */
  fastForward?: boolean;
  /**
   * false: no request reuses the KV cache an earlier one left in a sequence slot, nor leaves its own
   * (GenerateOptions.cachePrompt false for every request; llama-server's --no-cache-prompt). Default
   * true. A model served here only: a gateway's upstreams cache by their own settings.
   */
  cachePrompt?: boolean;
  /**
   * true: a request whose tools name a "format" the grammar does not enforce is answered 400
   * (GenerateOptions.strictFormats). Default false: the format is an annotation and `onNotice` hears of it.
   */
  strictFormats?: boolean;
  /**
   * Milliseconds between keepalives while a stream waits for its next event — its prefill, a slow
   * step (Messages: a `ping` event, as Anthropic's API sends; chat completions and Responses: an
   * SSE comment line). A stream's opening event goes out before prefill, or once it has waited this
   * long for a slot; this keeps clients and proxies that time out an idle read. 0: none (and a
   * queued stream opens when its slot comes). Default 5,000.
   */
  keepaliveMs?: number;
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
