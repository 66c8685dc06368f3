// The real opencode (scripts/lib/agent-clients.mjs pins it; `npm run clients`) against `toolmask
// serve` on Qwen2.5-Coder 0.5B (`npm run models`, on the CPU), no proxy and no rewriting, in a
// temporary folder holding notes.txt: `opencode run --format json "Print the first line of
// notes.txt."` with its own options for a small prompt (every tool but `read` off in its
// opencode.json: 2,751 prompt tokens). opencode sends no temperature, so the server's is set to 0
// (greedy). One whole tool turn: the model's `read` call reaches opencode, opencode reads the file
// and sends its text back, and the run ends with a final text answer (finish reason "stop"), exit 0.
// What the answer says is the model's: not asserted. Skipped without the client or the model, with
// the line that fetches them, except under CI=true.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseEnv, runChild } from "../../scripts/lib/agent-clients.mjs";
import { CODER, coderClient, useCoderServer } from "../support/real-coder.js";
import { statusRecorder } from "../support/status-recorder.js";
import { timeoutForMeasured } from "../support/timeouts.js";
import { NOTE_TEXT } from "../support/tool-turn-upstream.js";
import { writeOpencodeConfig } from "../support/opencode-config.js";

const { client: CLIENT, bin, ready } = coderClient("opencode", "opencode-real");
const inCi = process.env.CI === "true";
const OUTPUT_TOKENS = 300;
/**
 * Four requests (a title without tools, then 2,751, ~2,860 and ~3,000 prompt tokens, the later two
 * mostly read from the prompt cache; about 150 tokens decoded): 74 s with one decoding thread at
 * load average 2 on 2 cores; five times that.
 */
const RUN_MS = timeoutForMeasured(74_000);

interface Part {
  type: string;
  tool?: string;
  reason?: string;
  text?: string;
  state?: { status?: string; output?: string };
}
/** The JSON events `opencode run --format json` printed, one a line. */
const events = (output: string): Array<{ type: string; part?: Part }> =>
  output
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { type: string; part?: Part });

describe.skipIf(!ready && !inCi)(`${CLIENT.package}@${CLIENT.version} on ${CODER}`, () => {
  const served = useCoderServer(undefined, 0);
  let home: string;
  beforeAll(() => {
    if (!bin) throw new Error(`CI=true and ${CLIENT.package}@${CLIENT.version} is missing: run npm run clients`);
    home = mkdtempSync(path.join(tmpdir(), "toolmask-opencode-real-"));
  });
  afterAll(() => {
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it(
    "the model calls read, opencode reads notes.txt and sends its text back, and the run ends with a text answer",
    async () => {
      const work = path.join(home, "work");
      mkdirSync(work);
      writeFileSync(path.join(work, "notes.txt"), NOTE_TEXT);
      const recorder = await statusRecorder(served.server.url);
      const off = [
        "bash",
        "edit",
        "write",
        "grep",
        "glob",
        "list",
        "patch",
        "todowrite",
        "todoread",
        "webfetch",
        "task",
      ];
      writeOpencodeConfig(home, { baseUrl: recorder.url, model: CODER, context: 4096, output: OUTPUT_TOKENS, off });
      const env = { ...baseEnv(home), OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1" };
      const args = ["run", "--format", "json", "Print the first line of notes.txt."];
      const r = await runChild(bin!, args, { env, cwd: work, timeoutMs: RUN_MS }).finally(() => recorder.close());
      expect(r.timedOut, r.output).toBe(false);
      expect(r.code, r.output).toBe(0);
      expect(recorder.answers.filter((a) => !a.endsWith(" 200"))).toEqual([]);
      const all = events(r.output);
      // The model's calls, as opencode ran them: read, completed, its output the file's text.
      const reads = all.filter((e) => e.type === "tool_use").map((e) => e.part!);
      expect(reads.length, r.output).toBeGreaterThan(0);
      expect(new Set(reads.map((p) => p.tool))).toEqual(new Set(["read"]));
      for (const p of reads) {
        expect(p.state?.status, r.output).toBe("completed");
        expect(p.state?.output, r.output).toContain(NOTE_TEXT.trim());
      }
      // After the last call, a step that answers in text and stops.
      const lastTool = all.map((e) => e.type).lastIndexOf("tool_use");
      const after = all.slice(lastTool + 1);
      const finishes = after.filter((e) => e.type === "step_finish").map((e) => e.part?.reason);
      expect(finishes.at(-1), r.output).toBe("stop");
      const text = after
        .filter((e) => e.type === "text")
        .map((e) => e.part?.text ?? "")
        .join("");
      expect(text.trim().length, r.output).toBeGreaterThan(0);
    },
    RUN_MS + 10_000,
  );
});
