// Qwen2.5-Coder-0.5B-Instruct (the real tool-calling model `npm run models` fetches) served by the
// local engine for the real-model suites: one slot, 4,096 tokens of context, 2 threads unless told.
// Without the
// model a suite skips with the line that fetches it, except under CI=true, where it fails.
import { afterAll, beforeAll } from "vitest";
import { type LlamaModel, loadModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { listModels } from "./models-script.js";

export const CODER = "qwen2.5-coder-0.5b-instruct";
export const coderEntry = (await listModels()).find((m) => m.name === CODER)!;

export interface CoderServer {
  model: LlamaModel;
  server: ToolmaskServer;
}

/**
 * Registers beforeAll/afterAll that load the model and serve it; the fields are set once beforeAll
 * ran. `threads`: decoding threads (default 2).
 */
export function useCoderServer(threads = 2): CoderServer {
  const fixture = {} as CoderServer;
  beforeAll(async () => {
    if (!coderEntry.present) throw new Error(`CI=true and ${coderEntry.path} is missing: run npm run models`);
    fixture.model = await loadModel({ path: coderEntry.path, gpu: false, parallel: 1, contextSize: 4096, threads });
    fixture.server = await startServer({ model: fixture.model, port: 0 });
  }, 300_000);
  afterAll(async () => {
    await fixture.server?.close();
    fixture.model?.dispose();
  });
  return fixture;
}
