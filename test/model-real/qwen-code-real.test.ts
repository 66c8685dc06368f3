// The real Qwen Code (test/clients/qwen-code.test.ts pins it; `npm run clients`) against `toolmask
// serve` on Qwen2.5-Coder 0.5B (`npm run models`, greedy, on the CPU), in a temporary folder
// holding notes.txt: "Print the first line of notes.txt." with its own options for a small prompt
// (--core-tools read_file, the other tools it adds left out, auto memory off, a one-line system
// prompt through QWEN_SYSTEM_MD: 882 prompt tokens). With tool_choice auto the 0.5B model writes its
// call as a fenced JSON block (not a call: docs/clients.md), so its settings.json samplingParams
// (sent as they are) add tool_choice "required", temperature 0 and max_tokens 96: the model's
// read_file call reaches the client, the client reads the file and sends its text back as the
// tool result, and the second request is answered. Every answer is then a call too, so the run
// ends at --max-session-turns 2 (exit 53), not with a final text. Skipped without the client or the
// model, with the line that fetches it, except under CI=true.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseEnv, runChild } from "../../scripts/lib/agent-clients.mjs";
import { CODER, coderClient, useCoderServer } from "../support/real-coder.js";
import { timeoutForMeasured } from "../support/timeouts.js";
import { NOTE_TEXT } from "../support/tool-turn-upstream.js";

const NAME = CODER;
const { client: CLIENT, bin, ready } = coderClient("qwen-code", "qwen-code-real");
const inCi = process.env.CI === "true";
const OUTPUT_TOKENS = 96;
/**
 * Two requests of 882 and 944 prompt tokens (the second read 880 of them from the prompt cache),
 * 35 and 45 tokens decoded: the run took 738 s at load average 22 on 2 cores (the same two requests
 * at the rates of timeouts.ts would take about 50 s); five times that.
 */
const RUN_MS = timeoutForMeasured(738_000);

describe.skipIf(!ready && !inCi)(`${CLIENT.package}@${CLIENT.version} on ${NAME}`, () => {
  const served = useCoderServer();
  let home: string;
  beforeAll(async () => {
    if (!bin) throw new Error(`CI=true and ${CLIENT.package}@${CLIENT.version} is missing: run npm run clients`);
    home = mkdtempSync(path.join(tmpdir(), "toolmask-qwen-real-"));
  });
  afterAll(async () => {
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it(
    "the model's read_file call reaches the client, which reads notes.txt and sends its text back",
    async () => {
      const work = path.join(home, "work");
      const logs = path.join(home, "openai-logs");
      mkdirSync(work);
      mkdirSync(path.join(home, ".qwen"));
      writeFileSync(path.join(work, "notes.txt"), NOTE_TEXT);
      const system = path.join(home, "system.md");
      writeFileSync(
        system,
        "You are a coding assistant with tools. You cannot see files: to know what a file holds, call read_file with its absolute path, then answer from the result.\n",
      );
      const samplingParams = { temperature: 0, max_tokens: OUTPUT_TOKENS, tool_choice: "required" };
      const settings = { memory: { enableManagedAutoMemory: false }, model: { generationConfig: { samplingParams } } };
      writeFileSync(path.join(home, ".qwen", "settings.json"), JSON.stringify(settings));
      const env = {
        ...baseEnv(home),
        OPENAI_BASE_URL: `${served.server.url}/v1`,
        OPENAI_API_KEY: "unused",
        OPENAI_MODEL: NAME,
        QWEN_SYSTEM_MD: system,
      };
      const args = [
        "-p",
        "Print the first line of notes.txt.",
        "--auth-type",
        "openai",
        "--approval-mode",
        "yolo",
        "--core-tools",
        "read_file",
        "--exclude-tools",
        "agent,skill,tool_search,task_stop,send_message,ask_user_question,exit_plan_mode",
        "--max-session-turns",
        "2",
        "--openai-logging",
        "--openai-logging-dir",
        logs,
      ];
      const r = await runChild(bin!, args, { env, cwd: work, timeoutMs: RUN_MS });
      expect(r.timedOut, r.output).toBe(false);
      // Each API call Qwen Code made, with its request and the response it read.
      const calls = readdirSync(logs)
        .sort()
        .map((f) => JSON.parse(readFileSync(path.join(logs, f), "utf8")) as Record<string, unknown>);
      const text = JSON.stringify(calls);
      expect(calls.length, r.output).toBeGreaterThanOrEqual(2);
      // The model's call, as the client read it: read_file on notes.txt.
      expect(text).toMatch(/read_file[\s\S]*notes\.txt/);
      // The file's text went back in the second request.
      expect(JSON.stringify(calls[1])).toContain("The number is 4721.");
    },
    RUN_MS + 10_000,
  );
});
