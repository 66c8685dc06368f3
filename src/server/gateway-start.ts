// startServer({ upstreams }): the server as a gateway in front of upstream engines. The model's
// tokenizer and template are read from local files (gateway/model-source.ts); nothing is loaded.
import { basename } from "node:path";
import { GatewayBackend } from "../gateway/backend.js";
import { MAX_BODY_BYTES } from "../gateway/body-cap.js";
import { engineNamed, engineSettingsProblem } from "../gateway/engines/registry.js";
import { loadModelSource } from "../gateway/model-source.js";
import { UpstreamPool } from "../gateway/pool.js";
import type { ConnectionLimits } from "./connections.js";
import type { HostPolicy } from "./hosts.js";
import type { GatewayOptions, ServerOptions, ToolmaskServer } from "./options.js";
import { listen } from "./listen.js";

function checkGateway(g: GatewayOptions): void {
  if (!g || typeof g !== "object") throw new TypeError("upstreams must be { urls, engine, tokenizer }");
  const problem = engineSettingsProblem(g, (setting) => `upstreams.${setting}`);
  if (problem) throw new TypeError(problem);
  for (const [k, v] of [
    ["contextSize", g.contextSize],
    ["parallel", g.parallel],
  ] as const)
    if (v !== undefined && !(Number.isInteger(v) && v > 0 && v <= 2 ** 31 - 1))
      throw new RangeError(`upstreams.${k} must be a positive integer, got ${v}`);
  const cap = g.maxBodyBytes;
  if (cap !== undefined && !(Number.isInteger(cap) && cap > 0 && cap <= MAX_BODY_BYTES))
    throw new RangeError(`upstreams.maxBodyBytes must be an integer from 1 to ${MAX_BODY_BYTES} (256 MiB), got ${cap}`);
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
  const described = engineNamed(g.engine)!;
  const engine = described.create(g);
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
      upstreamModel: g.upstreamModel ?? (described.namesModel ? modelId : undefined),
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
