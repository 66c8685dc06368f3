// What every real-client test sets up inside its describe: a temporary folder holding notes.txt, a
// gateway whose upstream calls the client's file tool on it and then answers from the result
// (toolTurnGateway), and, where the client also runs on the test model, that model served by the
// local engine. Removed after the describe's tests.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { type LlamaModel, loadModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { testModelPath } from "./test-model.js";
import { NOTE_TEXT, noteAnswer, type ToolTurnGateway, toolTurnGateway } from "./tool-turn-upstream.js";

export interface ClientTurn {
  /** The folder holding notes.txt (the client's working directory). */
  work: string;
  /** The gateway running one tool turn: `call` on notes.txt, then noteAnswer of its result. */
  toolTurn: ToolTurnGateway;
  /** The test model served by the local engine (only with `testModel`). */
  server: ToolmaskServer;
}

/**
 * Registers beforeAll/afterAll that make the fixture; its fields are set once beforeAll ran.
 * `call` names the client's file tool and its arguments for the path of notes.txt.
 */
export function useClientTurn(
  client: string,
  call: (notesPath: string, work: string) => { name: string; arguments: Record<string, unknown> },
  options: { testModel?: { contextSize?: number } } = {},
): ClientTurn {
  const turn = {} as ClientTurn;
  let model: LlamaModel | undefined;
  beforeAll(async () => {
    turn.work = mkdtempSync(path.join(tmpdir(), `toolmask-${client}-work-`));
    const notes = path.join(turn.work, "notes.txt");
    writeFileSync(notes, NOTE_TEXT);
    turn.toolTurn = await toolTurnGateway(call(notes, turn.work), noteAnswer);
    if (options.testModel) {
      const { contextSize } = options.testModel;
      model = await loadModel({ path: testModelPath(), threads: 1, ...(contextSize ? { contextSize } : {}) });
      turn.server = await startServer({ model, port: 0 });
    }
  });
  afterAll(async () => {
    await turn.server?.close();
    await turn.toolTurn?.close();
    model?.dispose();
    if (turn.work) rmSync(turn.work, { recursive: true, force: true });
  });
  return turn;
}
