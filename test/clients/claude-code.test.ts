// The real Claude Code (@anthropic-ai/claude-code at the version scripts/lib/agent-clients.mjs
// pins; `npm run clients` installs it) run offline against this server, no proxy and no rewriting:
// `claude -p` with its own options for a small prompt (`--tools Read`, `--system-prompt`).
// - On the test model through the local engine (protocol only, any answer), with those options and
//   with its defaults and stream-json output (its whole prompt): its first request is accepted and
//   its stream read to the end — the random model writes until the output limit the
//   test sets (CLAUDE_CODE_MAX_OUTPUT_TOKENS), and Claude Code says so, which it can only say after
//   reading message_delta's stop_reason "max_tokens".
// - Through a gateway in front of an upstream that answers one line (answeringGateway): the client
//   prints the line and exits 0.
// - Through a gateway whose upstream calls Read (notes.txt) and then answers one line made from
//   the tool's result (toolTurnGateway), in a folder holding notes.txt: the client reads the file,
//   sends its text back, prints the line and exits 0.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_CLIENTS, baseEnv, installedBin, runChild } from "../../scripts/lib/agent-clients.mjs";
import { answeringGateway, type ReasoningGateway } from "../support/reasoning-upstream.js";
import { statusRecorder } from "../support/status-recorder.js";
import { ROOT } from "../support/vocabs.js";
import { useClientTurn } from "../support/client-turn.js";
import { timeoutForMeasured, timeoutForTokens } from "../support/timeouts.js";
import { NOTE_ANSWER } from "../support/tool-turn-upstream.js";

const CLIENT = AGENT_CLIENTS.find((c) => c.id === "claude-code")!;
const bin = installedBin(path.join(ROOT, ".cache", "clients"), CLIENT);
const inCi = process.env.CI === "true";
// Without the client the suite skips with a hint; under CI=true it fails (.ci/run installs it).
if (!bin && !inCi) console.log(`skipped: ${CLIENT.package}@${CLIENT.version} is not installed (npm run clients)`);
const OUTPUT_TOKENS = 16;
// `claude -p` took 4.3 s here from start to exit with the test model answering 16 tokens (the
// client's own start is most of it); its prompt with --tools Read and --system-prompt is ~1,000 tokens.
const RUN_MS = timeoutForMeasured(5_000) + timeoutForTokens(OUTPUT_TOKENS + 1_000);

/**
 * Its default options (no --tools, no --system-prompt) with the stream-json output its SDK users
 * read: 12 tools and its whole system prompt, 8,672 prompt tokens on the test model's vocabulary;
 * so printing, it sends thinking {type: "adaptive", display: "updates"} (with the text output,
 * "omitted"). Read by the test model at up to 0.89 ms/token under load (timeouts.ts).
 */
const DEFAULT_PROMPT_TOKENS = 10_000;
const DEFAULT_RUN_MS = timeoutForMeasured(5_000) + timeoutForTokens(OUTPUT_TOKENS + DEFAULT_PROMPT_TOKENS);

/** `claude -p prompt` in `cwd` (default: its private HOME); `whole`: its default options. */
async function claude(baseUrl: string, prompt: string, cwd?: string, whole = false) {
  if (!bin) throw new Error(`${CLIENT.package}@${CLIENT.version} is not installed: run npm run clients`);
  const home = mkdtempSync(path.join(tmpdir(), "toolmask-claude-"));
  try {
    const env = {
      ...baseEnv(home),
      ANTHROPIC_BASE_URL: baseUrl,
      ANTHROPIC_API_KEY: "sk-ant-test",
      CLAUDE_CODE_MAX_OUTPUT_TOKENS: String(OUTPUT_TOKENS),
    };
    const args = whole
      ? ["-p", prompt, "--output-format", "stream-json", "--verbose"]
      : ["-p", prompt, "--tools", "Read", "--system-prompt", "You are a terse assistant."];
    return await runChild(bin, args, { env, cwd: cwd ?? home, timeoutMs: whole ? DEFAULT_RUN_MS : RUN_MS });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

describe.skipIf(!bin && !inCi)(`${CLIENT.package}@${CLIENT.version}`, () => {
  const turn = useClientTurn("claude", (notes) => ({ name: "Read", arguments: { file_path: notes } }), {
    testModel: { contextSize: 24_576 },
  });
  let gateway: ReasoningGateway;
  beforeAll(async () => {
    gateway = await answeringGateway({ content: "Hello from toolmask." });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it(
    "on the test model: its request is answered and its stream read to the stop reason",
    async () => {
      const r = await claude(turn.server.url, "hi");
      expect(r.timedOut, r.output).toBe(false);
      expect(r.output).toContain(`exceeded the ${OUTPUT_TOKENS} output token maximum`);
      expect(r.output).not.toMatch(/API Error: 4\d\d|invalid_request_error/);
    },
    RUN_MS + 10_000,
  );

  it(
    'on the test model with its default options and stream-json (its whole prompt, thinking display "updates"): answered and read to the stop reason',
    async () => {
      const recorder = await statusRecorder(turn.server.url);
      const r = await claude(recorder.url, "hi", undefined, true).finally(() => recorder.close());
      expect(r.timedOut, r.output).toBe(false);
      // Every request answered: none refused and then sent again without what was refused.
      expect(recorder.answers.filter((a) => !a.endsWith(" 200"))).toEqual([]);
      expect(r.output).not.toMatch(/API Error: 4\d\d|invalid_request_error/);
      expect(r.output).toContain(`exceeded the ${OUTPUT_TOKENS} output token maximum`);
    },
    DEFAULT_RUN_MS + 10_000,
  );

  it(
    "through a gateway whose upstream answers one line: prints it and exits 0",
    async () => {
      const r = await claude(gateway.url, "hi");
      expect(r.timedOut, r.output).toBe(false);
      expect({ code: r.code, output: r.output.trim() }).toEqual({ code: 0, output: "Hello from toolmask." });
    },
    RUN_MS + 10_000,
  );

  it(
    "through a gateway whose upstream calls Read: reads the file, sends its text back, prints the answer, exits 0",
    async () => {
      const r = await claude(turn.toolTurn.url, "What number is in notes.txt?", turn.work);
      expect(r.timedOut, r.output).toBe(false);
      expect({ code: r.code, output: r.output.trim() }).toEqual({ code: 0, output: NOTE_ANSWER });
    },
    RUN_MS + 10_000,
  );
});
