// Qwen2.5-Coder-0.5B-Instruct (the real tool-calling model `npm run models` fetches) served by the
// local engine for the real-model suites: one slot, 4,096 tokens of context, the library's default
// threads unless told. Without the model a suite skips with the line that fetches it, except under CI=true, where it fails.
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { AGENT_CLIENTS, installedBin } from "../../scripts/lib/agent-clients.mjs";
import { defaultThreads, type LlamaModel, loadModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { listModels } from "./models-script.js";
import { ROOT } from "./vocabs.js";

export const CODER = "qwen2.5-coder-0.5b-instruct";
export const coderEntry = (await listModels()).find((m) => m.name === CODER)!;
/** Qwen2.5-Coder-1.5B-Instruct: not fetched by default nor in CI (`npm run models -- --only NAME`, ~1 GB). */
export const LARGER_CODER = "qwen2.5-coder-1.5b-instruct";
/** The larger model's entry (its path, whether it is fetched). */
export const largerCoderEntry = async () => (await listModels(["--only", LARGER_CODER]))[0]!;

export interface CoderServer {
  model: LlamaModel;
  server: ToolmaskServer;
}

/**
 * Registers beforeAll/afterAll that load the model and serve it; the fields are set once beforeAll
 * ran. `threads`: decoding threads (default: the library's, defaultThreads(): 1 on 2 cores, where
 * vitest runs two files at once and a second llama.cpp thread waits at ggml's spinning barriers
 * whenever the other file takes its core: a 30-token answer took 23–74 s with 2 threads, 5.5 s with 1); `temperature`: the server's for a request that sends
 * none (default: the server's own, 0.8).
 */
export function useCoderServer(threads = defaultThreads(), temperature?: number, entry = coderEntry): CoderServer {
  const fixture = {} as CoderServer;
  beforeAll(async () => {
    if (!entry.present) throw new Error(`CI=true and ${entry.path} is missing: run npm run models`);
    fixture.model = await loadModel({ path: entry.path, gpu: false, parallel: 1, contextSize: 4096, threads });
    fixture.server = await startServer({ model: fixture.model, port: 0, temperature });
  }, 300_000);
  afterAll(async () => {
    await fixture.server?.close();
    fixture.model?.dispose();
  });
  return fixture;
}

/**
 * An agent client of scripts/lib/agent-clients.mjs for a suite on this model: the client, its
 * installed binary (undefined when `npm run clients` has not installed it), and whether the suite
 * can run (the model and the client present). Without them the suite's file warns with what to
 * fetch, except under CI=true (where the suite runs and fails).
 */
export function coderClient(id: string, suite: string) {
  const client = AGENT_CLIENTS.find((c) => c.id === id);
  if (!client) throw new Error(`no agent client "${id}" in scripts/lib/agent-clients.mjs`);
  const bin = installedBin(path.join(ROOT, ".cache", "clients"), client);
  const ready = coderEntry.present && bin !== undefined;
  if (!ready && process.env.CI !== "true")
    console.warn(`${suite}: needs ${CODER} (npm run models) and ${client.package}@${client.version} (npm run clients)`);
  return { client, bin, ready };
}
