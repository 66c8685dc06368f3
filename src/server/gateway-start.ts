// startServer({ upstreams }): the server as a gateway in front of upstream engines. The model's
// tokenizer and template are read from local files (gateway/model-source.ts); nothing is loaded.
import { basename } from "node:path";
import { GatewayBackend } from "../gateway/backend.js";
import { MAX_BODY_BYTES } from "../gateway/body-cap.js";
import { llamaServer, llamaServerEngine } from "../gateway/engines/llama-server.js";
import { openaiCompatible } from "../gateway/engines/openai.js";
import { sglang } from "../gateway/engines/sglang.js";
import { ENGINE_NAMES, type EngineAdapter, type EngineName } from "../gateway/engines/types.js";
import { vllm } from "../gateway/engines/vllm.js";
import { GRAMMAR_SYNTAXES, type GrammarSyntax } from "../gateway/engines/grammar-text.js";
import { loadModelSource } from "../gateway/model-source.js";
import { UpstreamPool } from "../gateway/pool.js";
import type { ConnectionLimits } from "./connections.js";
import type { HostPolicy } from "./hosts.js";
import type { GatewayOptions, ServerOptions, ToolmaskServer } from "./options.js";
import { listen } from "./listen.js";

function adapterOf(engine: EngineName, syntax: GrammarSyntax | undefined, lazy: boolean | undefined): EngineAdapter {
  switch (engine) {
    case "llama-server":
      return lazy === undefined ? llamaServer : llamaServerEngine({ lazy });
    case "vllm":
      return vllm(syntax);
    case "sglang":
      return sglang(syntax);
    case "openai":
      return openaiCompatible;
  }
}

function checkGateway(g: GatewayOptions): void {
  if (!g || typeof g !== "object") throw new TypeError("upstreams must be { urls, engine, tokenizer }");
  if (!ENGINE_NAMES.includes(g.engine))
    throw new TypeError(`upstreams.engine must be one of ${ENGINE_NAMES.join(", ")}, got ${JSON.stringify(g.engine)}`);
  if (g.grammarSyntax !== undefined && !GRAMMAR_SYNTAXES.includes(g.grammarSyntax))
    throw new TypeError(`upstreams.grammarSyntax must be "ebnf" or "lark", got ${JSON.stringify(g.grammarSyntax)}`);
  if (g.lazyGrammar !== undefined && (typeof g.lazyGrammar !== "boolean" || g.engine !== "llama-server"))
    throw new TypeError("upstreams.lazyGrammar is true or false, for the llama-server engine only");
  if (g.grammarSyntax !== undefined && g.engine !== "vllm" && g.engine !== "sglang")
    throw new TypeError("upstreams.grammarSyntax applies to the vllm and sglang engines only");
  for (const [k, v] of [
    ["contextSize", g.contextSize],
    ["parallel", g.parallel],
  ] as const)
    if (v !== undefined && !(Number.isInteger(v) && v > 0 && v <= 2 ** 31 - 1))
      throw new RangeError(`upstreams.${k} must be a positive integer, got ${v}`);
  const cap = g.maxBodyBytes;
  if (cap !== undefined && !(Number.isInteger(cap) && cap > 0 && cap <= MAX_BODY_BYTES))
    throw new RangeError(`upstreams.maxBodyBytes must be an integer from 1 to ${MAX_BODY_BYTES} (256 MiB), got ${cap}`);
  if (g.engine !== "openai" && (typeof g.tokenizer !== "string" || g.tokenizer === ""))
    throw new TypeError(
      `the ${g.engine} gateway renders prompts itself: give upstreams.tokenizer (the model's .gguf file or Hugging Face folder)`,
    );
}

export async function startGatewayServer(
  options: ServerOptions,
  limits: ConnectionLimits,
  host: string,
  hosts: HostPolicy,
): Promise<ToolmaskServer> {
  const g = options.upstreams!;
  checkGateway(g);
  const model = g.tokenizer ? loadModelSource(g.tokenizer) : undefined;
  const engine = adapterOf(g.engine, g.grammarSyntax, g.lazyGrammar);
  const pool = new UpstreamPool(g.urls, engine, {
    ...(g.healthInterval !== undefined ? { healthInterval: g.healthInterval } : {}),
    ...(g.apiKey !== undefined ? { apiKey: g.apiKey } : {}),
  });
  try {
    await pool.checkAll();
    const modelId =
      options.modelId ?? g.upstreamModel ?? (g.tokenizer ? basename(g.tokenizer).replace(/\.gguf$/i, "") : "upstream");
    const backend = new GatewayBackend({
      engine,
      pool,
      model,
      upstreamModel: g.upstreamModel ?? (g.engine === "vllm" || g.engine === "openai" ? modelId : undefined),
      contextSize: g.contextSize ?? 4096,
      maxBodyBytes: g.maxBodyBytes,
    });
    return await listen(options, limits, host, hosts, {
      backend,
      parallel: g.parallel ?? 16 * pool.upstreams.length,
      modelId,
      redactPath: g.tokenizer ?? "",
      model: undefined,
      upstreams: pool.upstreams,
      dispose: () => pool.close(),
    });
  } catch (err) {
    pool.close();
    throw err;
  }
}
