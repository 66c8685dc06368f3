// The real opencode (opencode-ai at the version scripts/lib/agent-clients.mjs pins, a native
// binary; `npm run clients` installs it) run offline against this server's chat completions route,
// no proxy and no rewriting: `opencode run` with a provider of its config (the bundled
// @ai-sdk/openai-compatible, baseURL the server) as its model, models.dev not fetched
// (OPENCODE_DISABLE_MODELS_FETCH), in a temporary folder holding notes.txt.
// - On the test model through the local engine (protocol only, any answer): the model's
//   `limit.output` of 16 tokens is what opencode sends as max_tokens (default 32,000); its requests
//   (a title request without tools, then its 10 tools and a 7,210-token prompt) are answered and
//   read to the end: with --format json it reports the step's finish reason "length" and the
//   usage the stream's last chunk carries, and exits 0.
// - Through a gateway in front of an upstream that calls `read` and then answers one line made
//   from the tool's result (toolTurnGateway): the client runs the call, sends the file's text
//   back, prints the line and exits 0.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AGENT_CLIENTS, baseEnv, installedBin, runChild } from "../../scripts/lib/agent-clients.mjs";
import { useClientTurn } from "../support/client-turn.js";
import { timeoutFor, timeoutForMeasured } from "../support/timeouts.js";
import { NOTE_ANSWER } from "../support/tool-turn-upstream.js";
import { ROOT } from "../support/vocabs.js";
import { writeOpencodeConfig } from "../support/opencode-config.js";

const CLIENT = AGENT_CLIENTS.find((c) => c.id === "opencode")!;
const bin = installedBin(path.join(ROOT, ".cache", "clients"), CLIENT);
const inCi = process.env.CI === "true";
// Without the client the suite skips with a hint; under CI=true it fails (.ci/run installs it).
if (!bin && !inCi) console.log(`skipped: ${CLIENT.package}@${CLIENT.version} is not installed (npm run clients)`);
const OUTPUT_TOKENS = 16;
/** Its two requests on the test model's (Qwen3) tokenizer: a title request and 7,210 tokens. */
const PROMPT_TOKENS = 8_000;
const CONTEXT = 12_288;
// A run through the gateway took 20 s here, one on the test model 44 s (load average 14 on 2
// cores): the client's start is most of either.
const RUN_MS =
  timeoutForMeasured(44_000) +
  timeoutFor({ prompt: PROMPT_TOKENS, decode: 2 * OUTPUT_TOKENS, requests: 2, model: "test-model" });

/** `opencode run …args` in `work` (a folder holding notes.txt), with a private HOME whose config names the server. */
async function opencode(baseUrl: string, work: string, args: string[]) {
  if (!bin) throw new Error(`${CLIENT.package}@${CLIENT.version} is not installed: run npm run clients`);
  const home = mkdtempSync(path.join(tmpdir(), "toolmask-opencode-"));
  try {
    writeOpencodeConfig(home, { baseUrl, model: "toolmask-test", context: CONTEXT, output: OUTPUT_TOKENS });
    const env = { ...baseEnv(home), OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1" };
    return await runChild(bin, ["run", ...args], { env, cwd: work, timeoutMs: RUN_MS });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** The JSON events `opencode run --format json` printed, one a line. */
const jsonEvents = (output: string) =>
  output
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { type: string; part?: { reason?: string; tokens?: { output?: number } } });

describe.skipIf(!bin && !inCi)(`${CLIENT.package}@${CLIENT.version}`, () => {
  const turn = useClientTurn("opencode", (notes) => ({ name: "read", arguments: { filePath: notes } }), {
    testModel: { contextSize: CONTEXT },
  });

  it(
    "on the test model: its requests are answered and read to the finish reason and usage, exit 0",
    async () => {
      const r = await opencode(turn.server.url, turn.work, ["--format", "json", "hi"]);
      expect(r.timedOut, r.output).toBe(false);
      expect(r.code, r.output).toBe(0);
      const finish = jsonEvents(r.output).find((e) => e.type === "step_finish");
      expect(finish?.part, r.output).toMatchObject({ reason: "length", tokens: { output: OUTPUT_TOKENS } });
    },
    RUN_MS + 10_000,
  );

  it(
    "through a gateway whose upstream calls read: runs it, sends the result back, prints the answer, exits 0",
    async () => {
      const r = await opencode(turn.toolTurn.url, turn.work, ["What number is in notes.txt?"]);
      expect(r.timedOut, r.output).toBe(false);
      expect(r.code, r.output).toBe(0);
      expect(r.output).toContain(NOTE_ANSWER);
    },
    RUN_MS + 10_000,
  );
});
