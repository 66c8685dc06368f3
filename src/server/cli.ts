// `toolmask serve`: flags → startServer(), then serve until SIGINT/SIGTERM. Returns the exit code:
// 0 after a clean shutdown, 2 for bad flags, 1 when the model cannot load or the port cannot bind.
import { parseArgs } from "node:util";
import { modelFileProblem, modelLoadProblem } from "../cli/model-file.js";
import { connectionLimits } from "./connections.js";
import { checkCorsOrigins } from "./cors.js";
import { hostPolicy } from "./hosts.js";
import { checkAliases } from "./model-names.js";
import { startServer, type ServerOptions } from "./index.js";
import { engineSettingsProblem } from "../gateway/engines/registry.js";
import type { EngineName } from "../gateway/engines/types.js";
import type { GrammarSyntax } from "../gateway/engines/grammar-text.js";
import { checkUpstreamUrl } from "../gateway/upstream-url.js";

export const SERVE_HELP = `Usage: toolmask serve --model PATH [options]
       toolmask serve --upstream URL [--upstream URL ...] --engine ENGINE --tokenizer PATH [options]

Serves OpenAI's chat completions and Responses APIs and Anthropic's Messages API
(POST /v1/chat/completions, /v1/responses, /v1/messages; GET /v1/models, /health),
whose tool calls are masked to the request's tools: decoded here with --model, or by upstream
engines with --upstream (a gateway: the grammar goes in the engine's own field and every answer
is read back through the dialect's parser; docs/scale-out.md).

Options:
  --model PATH         the .gguf model to serve here
  --upstream URL       an engine to forward to (repeat for several: least-outstanding balancing,
                       health checks, failover before an answer begins)
  --engine ENGINE      the upstreams' kind: llama-server, vllm, sglang, or openai (any
                       OpenAI-compatible server: answers verified only, nothing enforced)
  --tokenizer PATH     the upstream model's .gguf or Hugging Face folder (tokenizer.json, template);
                       required but for --engine openai
  --upstream-model NAME the model name vllm/openai upstreams expect (default: --model-id)
  --grammar-syntax S   vllm/sglang: ebnf (XGrammar, their default backend) or lark (llguidance)
  --upstream-api-key K sent to upstreams as "Authorization: Bearer K"
  --no-lazy-grammar    llama-server, tool_choice auto: send the whole grammar (content constrained
                       too) instead of a lazy one triggered by the call's opening text
  --max-upstream-body-mb N  an upstream answer past N MiB (1 to 256) is answered 502 naming the
                       cap (default: per request, 1 MiB + twice the request + 1 KiB per max_tokens token)
  --host HOST          address to bind (default 127.0.0.1: this machine only)
  --port N             port to listen on (default 8080; 0 picks a free one)
  --parallel N         generations decoding at once, as sequences of one context (default 4)
  --queue N            requests that may wait for a slot; beyond them 429 (default 64)
  --api-key KEY        require "Authorization: Bearer KEY" (also read from TOOLMASK_API_KEY)
  --threads N          CPU threads for decoding (default: half the CPUs)
  --context-size N     tokens per generation, prompt and answer (default: trained, at most 4096);
                       the KV cache holds this times --parallel; with --upstream, the upstream's
                       (default 4096): messages beyond it are refused, and the default max_tokens
  --dialect NAME       tool-call dialect, when the chat template does not tell
  --temperature T      sampling temperature of a request that sends none, 0 to 2 (default 0.8;
                       0: greedy); a request's own temperature wins
  --model-id NAME      the model's name in responses (default: file name without .gguf)
  --model-alias NAME   another name the model answers to (repeat, or comma-separated); with
                       aliases, a request naming neither the id nor an alias gets 404
  --cors ORIGINS       answer browser requests from these origins (https://app.example,
                       comma-separated, or "*" for any); default: no cross-origin access
  --no-fast-forward    sample every token, also the text the grammar forces (to compare)
  --no-cache-prompt    decode every prompt whole: no request reuses the KV cache an earlier one
                       left in its sequence slot, nor leaves its own (--model only)
  --no-exact-prompts   llama-server's batching (--model only): every sequence's tokens in one
                       decode, any cached prefix reused, the previous answer's included; faster
                       with several conversations, logits no longer those of a fresh decode
  --strict-formats     refuse (400) a tool whose schema names a "format" the grammar does not
                       enforce; default: such a format is an annotation, logged once per request
  --keepalive MS       while a stream waits (a slot, prefill, a slow step), a keepalive every MS
                       milliseconds (Messages: a ping event; others: an SSE comment); 0: none;
                       default 5000
  --allowed-hosts LIST Host header names to answer besides localhost, 127.0.0.1 and [::1],
                       comma-separated, or "*" for any (default: any when --host is not
                       a loopback address, else only those)
  --headers-timeout MS a request's line and headers within MS of its first byte, else 408
                       (default 10000; also closes a connection that sends nothing)
  --request-timeout MS the whole request, body included, within MS, else 408 (default 60000;
                       generating the answer is not limited)
  --idle-timeout MS    close a keep-alive connection idle for MS (default 5000)
  --max-connections N  connections open at once; more are closed on arrival (default 256)
  --grammar-cache-mb N memory for grammars, in MiB: compiled grammars kept for requests with
                       the same tools, the parser's value grammars, idle shapes (default 256;
                       least recently used out first)
  -h, --help           show this help
`;

export interface ServeIO {
  out: { write(s: string): unknown };
  err: { write(s: string): unknown };
  /** Ends the server when it aborts (tests); SIGINT and SIGTERM always do. */
  signal?: AbortSignal;
}

class FlagError extends Error {}

function int(
  flag: string,
  v: string | undefined,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
  unit = "",
): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min || n > max)
    throw new FlagError(`--${flag} must be an integer from ${min} to ${max}${unit}, got "${v}"`);
  return n;
}

function optionsOf(argv: string[]): ServerOptions | "help" {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        model: { type: "string" },
        upstream: { type: "string", multiple: true },
        engine: { type: "string" },
        tokenizer: { type: "string" },
        "upstream-model": { type: "string" },
        "grammar-syntax": { type: "string" },
        "upstream-api-key": { type: "string" },
        "no-lazy-grammar": { type: "boolean" },
        "max-upstream-body-mb": { type: "string" },
        host: { type: "string" },
        port: { type: "string" },
        parallel: { type: "string" },
        queue: { type: "string" },
        "api-key": { type: "string" },
        threads: { type: "string" },
        "context-size": { type: "string" },
        dialect: { type: "string" },
        "model-id": { type: "string" },
        "model-alias": { type: "string", multiple: true },
        cors: { type: "string" },
        "allowed-hosts": { type: "string" },
        "headers-timeout": { type: "string" },
        "request-timeout": { type: "string" },
        "idle-timeout": { type: "string" },
        "max-connections": { type: "string" },
        "grammar-cache-mb": { type: "string" },
        "no-fast-forward": { type: "boolean" },
        "no-cache-prompt": { type: "boolean" },
        "no-exact-prompts": { type: "boolean" },
        "strict-formats": { type: "boolean" },
        temperature: { type: "string" },
        keepalive: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (err) {
    throw new FlagError((err as Error).message);
  }
  if (values.help) return "help";
  const upstreams = values.upstream ?? [];
  if (values.model && upstreams.length) throw new FlagError("give --model (serve it here) or --upstream URL, not both");
  if (!values.model && !upstreams.length)
    throw new FlagError("--model PATH (a .gguf file) or --upstream URL (an engine to forward to) is required");
  const apiKey = values["api-key"] ?? process.env.TOOLMASK_API_KEY;
  if (apiKey !== undefined && apiKey.length === 0) throw new FlagError("--api-key must not be empty");
  const threads = int("threads", values.threads, 1);
  const contextSize = int("context-size", values["context-size"], 16);
  const o: ServerOptions = {
    host: values.host ?? "127.0.0.1",
    port: int("port", values.port, 0, 65535) ?? 8080,
  };
  const gatewayOnly = [
    "engine",
    "tokenizer",
    "upstream-model",
    "grammar-syntax",
    "upstream-api-key",
    "no-lazy-grammar",
    "max-upstream-body-mb",
  ] as const;
  if (values.model) {
    for (const f of gatewayOnly)
      if (values[f] !== undefined) throw new FlagError(`--${f} goes with --upstream, not --model`);
    o.modelPath = values.model;
    o.load = {
      ...(threads !== undefined ? { threads } : {}),
      ...(contextSize !== undefined ? { contextSize } : {}),
      ...(values["no-exact-prompts"] ? { exactPrompts: false } : {}),
    };
  } else {
    if (threads !== undefined) throw new FlagError("--threads goes with --model: upstream engines decode");
    if (values["no-exact-prompts"])
      throw new FlagError("--no-exact-prompts goes with --model: upstream engines batch by their own settings");
    if (values["no-cache-prompt"])
      throw new FlagError("--no-cache-prompt goes with --model: upstream engines cache prompts by their own settings");
    const engine = values.engine;
    const syntax = values["grammar-syntax"];
    const flag = {
      engine: "--engine",
      grammarSyntax: "--grammar-syntax",
      lazyGrammar: "--no-lazy-grammar",
      tokenizer: "--tokenizer PATH",
    };
    const problem = engineSettingsProblem(
      {
        engine,
        grammarSyntax: syntax,
        lazyGrammar: values["no-lazy-grammar"] ? false : undefined,
        tokenizer: values.tokenizer,
      },
      (setting) => flag[setting],
    );
    if (problem) throw new FlagError(problem);
    for (const u of upstreams)
      try {
        checkUpstreamUrl(u);
      } catch (err) {
        throw new FlagError(`--upstream: ${(err as Error).message}`);
      }
    o.upstreams = {
      urls: upstreams,
      engine: engine as EngineName,
      ...(values.tokenizer !== undefined ? { tokenizer: values.tokenizer } : {}),
      ...(values["upstream-model"] !== undefined ? { upstreamModel: values["upstream-model"] } : {}),
      ...(syntax !== undefined ? { grammarSyntax: syntax as GrammarSyntax } : {}),
      ...(values["upstream-api-key"] !== undefined ? { apiKey: values["upstream-api-key"] } : {}),
      ...(values["no-lazy-grammar"] ? { lazyGrammar: false } : {}),
      ...(contextSize !== undefined ? { contextSize } : {}),
    };
    const bodyMb = int("max-upstream-body-mb", values["max-upstream-body-mb"], 1, 256);
    if (bodyMb !== undefined) o.upstreams.maxBodyBytes = bodyMb * 1024 * 1024;
  }
  const parallel = int("parallel", values.parallel, 1);
  const queue = int("queue", values.queue, 0);
  if (parallel !== undefined) {
    if (o.upstreams) o.upstreams.parallel = parallel;
    else o.parallel = parallel;
  }
  if (queue !== undefined) o.maxQueue = queue;
  if (apiKey !== undefined) o.apiKey = apiKey;
  if (values.dialect !== undefined) o.dialect = values.dialect;
  if (values.temperature !== undefined) {
    const t = values.temperature.trim() === "" ? Number.NaN : Number(values.temperature);
    if (!(t >= 0 && t <= 2))
      throw new FlagError(`--temperature must be a number from 0 to 2, got "${values.temperature}"`);
    o.temperature = t;
  }
  if (values["model-id"] !== undefined) o.modelId = values["model-id"];
  const aliases = list(values["model-alias"] ?? []);
  if (values["model-alias"] !== undefined) {
    if (aliases.length === 0) throw new FlagError("--model-alias needs a name");
    try {
      o.modelAliases = checkAliases(aliases, o.modelId);
    } catch (err) {
      throw new FlagError(`--model-alias: ${(err as Error).message.replace(/^modelAliases /, "")}`);
    }
  }
  if (values.cors !== undefined) {
    try {
      o.cors = checkCorsOrigins(list([values.cors]));
    } catch {
      throw new FlagError(
        `--cors needs origins as browsers send them, comma-separated (https://app.example,http://localhost:3000), or "*", got ${JSON.stringify(values.cors)}`,
      );
    }
  }
  if (values["no-fast-forward"]) o.fastForward = false;
  if (values["no-cache-prompt"]) o.cachePrompt = false;
  if (values["strict-formats"]) o.strictFormats = true;
  const keepalive = int("keepalive", values.keepalive, 0, 2 ** 31 - 1, " (milliseconds; 0: none)");
  if (keepalive !== undefined) o.keepaliveMs = keepalive;
  const cacheMb = int("grammar-cache-mb", values["grammar-cache-mb"], 0, 1_048_576);
  if (cacheMb !== undefined) o.grammarCacheBytes = cacheMb * 1024 * 1024;
  const ms = (flag: string) =>
    int(flag, values[flag as keyof typeof values] as string | undefined, 1, 2 ** 31 - 1, " (milliseconds)");
  const limits = {
    headersTimeout: ms("headers-timeout"),
    requestTimeout: ms("request-timeout"),
    idleTimeout: ms("idle-timeout"),
    maxConnections: int("max-connections", values["max-connections"], 1, 1_000_000),
  };
  for (const [k, v] of Object.entries(limits)) if (v !== undefined) (o as Record<string, unknown>)[k] = v;
  try {
    connectionLimits(limits);
  } catch (err) {
    // The option names as flags: "headersTimeout" → "--headers-timeout".
    throw new FlagError(
      (err as Error).message.replace(
        /\b(headersTimeout|requestTimeout)\b/g,
        (n) => `--${n.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
      ),
    );
  }
  if (values["allowed-hosts"] !== undefined) o.allowedHosts = allowedHosts(values["allowed-hosts"]);
  return o;
}

/** Flag values, each split at commas, trimmed, empties dropped. */
const list = (values: string[]) =>
  values
    .flatMap((v) => v.split(","))
    .map((n) => n.trim())
    .filter((n) => n !== "");

function allowedHosts(given: string): string[] {
  const names = list([given]);
  if (names.length === 0) throw new FlagError('--allowed-hosts needs host names, comma-separated, or "*"');
  for (const n of names) {
    try {
      hostPolicy("127.0.0.1", [n]);
    } catch {
      throw new FlagError(
        `--allowed-hosts: ${JSON.stringify(n)} is not a host name; give names or addresses without a port, scheme or path (my.box, 192.168.1.5, [::1]), or "*"`,
      );
    }
  }
  return names;
}

function stopped(signal: AbortSignal | undefined): Promise<string> {
  return new Promise((resolve) => {
    const on = (name: string) => () => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      resolve(name);
    };
    const onInt = on("SIGINT"),
      onTerm = on("SIGTERM");
    process.once("SIGINT", onInt);
    process.once("SIGTERM", onTerm);
    signal?.addEventListener("abort", on("abort"), { once: true });
  });
}

export async function serveCommand(
  argv: string[],
  io: ServeIO = { out: process.stdout, err: process.stderr },
): Promise<number> {
  let options: ServerOptions | "help";
  try {
    options = optionsOf(argv);
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    io.err.write(`toolmask serve: ${err.message}\nRun "toolmask serve --help" for the options.\n`);
    return 2;
  }
  if (options === "help") {
    io.out.write(SERVE_HELP);
    return 0;
  }

  // A model file that is plainly wrong is said before llama.cpp is loaded for it.
  const problem = options.modelPath !== undefined ? modelFileProblem(options.modelPath) : undefined;
  if (problem) {
    io.err.write(`toolmask serve: ${problem}\n`);
    return 1;
  }
  let server;
  try {
    server = await startServer({
      ...options,
      onError: (err) => io.err.write(`toolmask serve: error: ${(err as Error)?.stack ?? String(err)}\n`),
      onNotice: (notice) => io.err.write(`toolmask serve: notice: ${notice}\n`),
    });
  } catch (err) {
    io.err.write(
      `toolmask serve: ${(options.modelPath !== undefined ? modelLoadProblem(options.modelPath, err) : undefined) ?? (err as Error)?.message ?? String(err)}\n`,
    );
    return 1;
  }
  const hosts = hostPolicy(options.host ?? "127.0.0.1", options.allowedHosts);
  const shownHosts =
    hosts === "any" ? "any host" : `hosts ${[...hosts].map((h) => (h.includes(":") ? `[${h}]` : h)).join(", ")}`;
  io.out.write(
    `toolmask serve: listening on ${server.url} (${options.modelPath !== undefined ? `model ${options.modelPath}` : `${options.upstreams!.engine} upstreams ${options.upstreams!.urls.join(", ")}`}, ${server.parallel} slots, queue ${server.maxQueue}${options.cachePrompt === false ? ", prompt cache off" : ""}${options.load?.exactPrompts === false ? ", exact prompts off" : ""}${options.apiKey ? ", API key required" : ""}, ${shownHosts}${options.modelAliases ? `, also named ${options.modelAliases.join(", ")}` : ""}${options.cors ? `, CORS for ${options.cors.join(", ")}` : ""})\n`,
  );
  const why = await stopped(io.signal);
  io.out.write(`toolmask serve: ${why === "abort" ? "stopping" : `${why}, stopping`}\n`);
  await server.close();
  return 0;
}
