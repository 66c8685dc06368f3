// The real Codex CLI (@openai/codex at the version scripts/lib/agent-clients.mjs pins; `npm run
// clients` installs it) run offline against this server's Responses route, no proxy and no
// rewriting: `codex exec` with a model provider whose base_url is the server (wire_api
// "responses"), retries off. Through a gateway in front of an upstream that answers one line
// (answeringGateway), its first request — client_metadata, namespace, custom (apply_patch's Lark
// grammar for a model it knows), tool_search and web_search tools — is answered and Codex prints
// the line and exits 0, for a model name it has no metadata for and for gpt-5.5. Through a gateway
// whose upstream calls exec_command (`cat notes.txt`) and then answers one line made from the
// command's output (toolTurnGateway), in a folder holding notes.txt: Codex runs the command, sends
// its output back, prints the line and exits 0.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_CLIENTS, baseEnv, installedBin, runChild } from "../../scripts/lib/agent-clients.mjs";
import { answeringGateway, type ReasoningGateway } from "../support/reasoning-upstream.js";
import { useClientTurn } from "../support/client-turn.js";
import { timeoutForMeasured } from "../support/timeouts.js";
import { NOTE_ANSWER } from "../support/tool-turn-upstream.js";
import { ROOT } from "../support/vocabs.js";

const CLIENT = AGENT_CLIENTS.find((c) => c.id === "codex")!;
const bin = installedBin(path.join(ROOT, ".cache", "clients"), CLIENT);
const inCi = process.env.CI === "true";
// Without the client the suite skips with a hint; under CI=true it fails (.ci/run installs it).
if (!bin && !inCi) console.log(`skipped: ${CLIENT.package}@${CLIENT.version} is not installed (npm run clients)`);
// `codex exec hi` took about 2 s here against the gateway (its start is most of it).
const RUN_MS = timeoutForMeasured(5_000);

/** `codex exec prompt` in `cwd` (default: its private HOME). */
async function codex(baseUrl: string, model: string, prompt = "hi", cwd?: string) {
  if (!bin) throw new Error(`${CLIENT.package}@${CLIENT.version} is not installed: run npm run clients`);
  const home = mkdtempSync(path.join(tmpdir(), "toolmask-codex-"));
  try {
    const codexHome = path.join(home, ".codex");
    mkdirSync(codexHome);
    writeFileSync(
      path.join(codexHome, "config.toml"),
      [
        `model = ${JSON.stringify(model)}`,
        'model_provider = "toolmask"',
        'approval_policy = "never"',
        'sandbox_mode = "read-only"',
        "[model_providers.toolmask]",
        'name = "toolmask"',
        `base_url = ${JSON.stringify(`${baseUrl}/v1`)}`,
        'wire_api = "responses"',
        'env_key = "TOOLMASK_KEY"',
        "request_max_retries = 0",
        "stream_max_retries = 0",
        "",
      ].join("\n"),
    );
    const env = { ...baseEnv(home), CODEX_HOME: codexHome, TOOLMASK_KEY: "unused" };
    return await runChild(bin, ["exec", "--skip-git-repo-check", prompt], { env, cwd: cwd ?? home, timeoutMs: RUN_MS });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

describe.skipIf(!bin && !inCi)(`${CLIENT.package}@${CLIENT.version}`, () => {
  const turn = useClientTurn("codex", () => ({ name: "exec_command", arguments: { cmd: "cat notes.txt" } }));
  let gateway: ReasoningGateway;
  beforeAll(async () => {
    gateway = await answeringGateway({ content: "Hello from toolmask." });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it.each(["toolmask-test", "gpt-5.5"])(
    "model %s, through a gateway whose upstream answers one line: prints it and exits 0",
    async (model) => {
      const r = await codex(gateway.url, model);
      expect(r.timedOut, r.output).toBe(false);
      expect(r.code, r.output).toBe(0);
      expect(r.output).toContain("Hello from toolmask.");
    },
    RUN_MS + 10_000,
  );

  it.each(["toolmask-test", "gpt-5.5"])(
    "model %s, through a gateway whose upstream calls exec_command: runs it, sends the output back, prints the answer, exits 0",
    async (model) => {
      const r = await codex(turn.toolTurn.url, model, "What number is in notes.txt?", turn.work);
      expect(r.timedOut, r.output).toBe(false);
      expect(r.code, r.output).toBe(0);
      expect(r.output).toContain(NOTE_ANSWER);
    },
    RUN_MS + 10_000,
  );
});
