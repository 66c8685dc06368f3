// The real Qwen Code (@qwen-code/qwen-code at the version scripts/lib/agent-clients.mjs pins; `npm
// run clients` installs it) run offline against this server's chat completions route, no proxy and
// no rewriting: `qwen -p` with the OpenAI auth type (OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL),
// every tool approved (--approval-mode yolo), in a temporary folder holding notes.txt; its own
// options for a smaller prompt: `--core-tools read_file`, the tools it adds besides those left out
// (--exclude-tools), auto memory off in its settings.json.
// - On the test model through the local engine (protocol only, any answer): its request (5,553
//   prompt tokens) is accepted and its stream read to the end; the client prints the text and
//   exits 0. Its settings.json sets samplingParams (sent as they are): max_tokens 16, and a
//   logit_bias against the newline tokens (198 "\n", 271 "\n\n"), since after this prompt the
//   random model writes newlines only and Qwen Code ends such an answer with "Model stream ended
//   with empty response text" (exit 1).
// - Through a gateway in front of an upstream that calls read_file and then answers one line made
//   from the tool's result (toolTurnGateway): the client runs the call, sends the file's text
//   back, prints the line and exits 0.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AGENT_CLIENTS, baseEnv, installedBin, runChild } from "../../scripts/lib/agent-clients.mjs";
import { useClientTurn } from "../support/client-turn.js";
import { timeoutFor, timeoutForMeasured } from "../support/timeouts.js";
import { NOTE_ANSWER } from "../support/tool-turn-upstream.js";
import { ROOT } from "../support/vocabs.js";

const CLIENT = AGENT_CLIENTS.find((c) => c.id === "qwen-code")!;
const bin = installedBin(path.join(ROOT, ".cache", "clients"), CLIENT);
const inCi = process.env.CI === "true";
// Without the client the suite skips with a hint; under CI=true it fails (.ci/run installs it).
if (!bin && !inCi) console.log(`skipped: ${CLIENT.package}@${CLIENT.version} is not installed (npm run clients)`);
const OUTPUT_TOKENS = 16;
/** Its prompt with these options: 5,553 tokens on the test model's (Qwen3) tokenizer. */
const PROMPT_TOKENS = 5_600;
// A run through the gateway took 7 s here, one on the test model 24 s (load average 14 on 2
// cores): the client's start is most of either.
const RUN_MS =
  timeoutForMeasured(24_000) + timeoutFor({ prompt: PROMPT_TOKENS, decode: OUTPUT_TOKENS, model: "test-model" });
const SMALL_PROMPT = [
  "--core-tools",
  "read_file",
  "--exclude-tools",
  "agent,skill,tool_search,task_stop,send_message,ask_user_question,exit_plan_mode",
];

/** `qwen -p prompt` run in `work` (a folder holding notes.txt), with a private HOME. */
async function qwen(baseUrl: string, work: string, prompt: string) {
  if (!bin) throw new Error(`${CLIENT.package}@${CLIENT.version} is not installed: run npm run clients`);
  const home = mkdtempSync(path.join(tmpdir(), "toolmask-qwen-"));
  try {
    mkdirSync(path.join(home, ".qwen"));
    const samplingParams = { max_tokens: OUTPUT_TOKENS, logit_bias: { 198: -100, 271: -100 } };
    const settings = { memory: { enableManagedAutoMemory: false }, model: { generationConfig: { samplingParams } } };
    writeFileSync(path.join(home, ".qwen", "settings.json"), JSON.stringify(settings));
    const env = {
      ...baseEnv(home),
      OPENAI_BASE_URL: `${baseUrl}/v1`,
      OPENAI_API_KEY: "unused",
      OPENAI_MODEL: "toolmask-test",
    };
    const args = ["-p", prompt, "--auth-type", "openai", "--approval-mode", "yolo", ...SMALL_PROMPT];
    return await runChild(bin, args, { env, cwd: work, timeoutMs: RUN_MS });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

describe.skipIf(!bin && !inCi)(`${CLIENT.package}@${CLIENT.version}`, () => {
  const turn = useClientTurn("qwen", (notes) => ({ name: "read_file", arguments: { file_path: notes } }), {
    testModel: { contextSize: 8_192 },
  });

  it(
    "on the test model: its request is answered, its stream read to the end, the text printed, exit 0",
    async () => {
      const r = await qwen(turn.server.url, turn.work, "hi");
      expect(r.timedOut, r.output).toBe(false);
      expect(r.output).not.toMatch(/API Error/);
      expect(r.code, r.output).toBe(0);
      expect(r.output.trim().length, r.output).toBeGreaterThan(0);
    },
    RUN_MS + 10_000,
  );

  it(
    "through a gateway whose upstream calls read_file: runs it, sends the result back, prints the answer, exits 0",
    async () => {
      const r = await qwen(turn.toolTurn.url, turn.work, "What number is in notes.txt?");
      expect(r.timedOut, r.output).toBe(false);
      expect({ code: r.code, output: r.output.trim() }).toEqual({ code: 0, output: NOTE_ANSWER });
    },
    RUN_MS + 10_000,
  );
});
