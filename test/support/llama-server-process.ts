// llama.cpp's own llama-server for the gateway suites: scripts/oracles/llama-server/process.mjs
// (built if needed, started on a free port, waited for until /health says ok) with these suites'
// defaults, a 4096-token context, 2 slots and 1 thread, which `args` may override.
import { timeoutForMeasured } from "./timeouts.js";
import {
  LLAMA_SERVER_START_MS,
  startLlamaServer as start,
  type LlamaServerProcess,
} from "../../scripts/oracles/llama-server/process.mjs";

export { LLAMA_SERVER_START_MS, type LlamaServerProcess };

/**
 * How long building llama-server may take (npm run build:llama-server, the prebuilt strategy): 310.9 s
 * measured here, 2 cores at load average 8, after a stamp change (scripts/oracles/llama-server/build.mjs).
 */
export const LLAMA_SERVER_BUILD_MS = timeoutForMeasured(310_900);

export function startLlamaServer(model: string, args: string[] = []): Promise<LlamaServerProcess> {
  return start(model, ["-c", "4096", "-np", "2", "-t", "1", ...args]);
}
