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
// On Qwen2.5-Coder 1.5B (`npm run models -- --only qwen2.5-coder-1.5b-instruct`; not fetched in
// CI, so skipped there too) under tool choice auto, greedy: the model's read_file call, the file's
// text back, and a final text answer, exit 0.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseEnv, runChild } from "../../scripts/lib/agent-clients.mjs";
import {
  CODER,
  coderClient,
  LARGER_CODER,
  largerCoderEntry,
  useCoderServer,
  type CoderServer,
} from "../support/real-coder.js";
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
/** On the 1.5B: requests of 874 and 952 prompt tokens, 50 and 9 decoded, 41 s at load average 2 with one thread. */
const LARGER_RUN_MS = timeoutForMeasured(41_000);
const larger = await largerCoderEntry();
if (!larger.present)
  console.warn(
    `qwen-code-real: ${LARGER_CODER} not fetched (npm run models -- --only ${LARGER_CODER}); its run is skipped`,
  );

/** Each API call Qwen Code made (its request and the response it read), and the run. */
async function runQwen(
  served: CoderServer,
  home: string,
  model: string,
  samplingParams: object,
  turns: number,
  timeoutMs: number,
) {
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
  const settings = { memory: { enableManagedAutoMemory: false }, model: { generationConfig: { samplingParams } } };
  writeFileSync(path.join(home, ".qwen", "settings.json"), JSON.stringify(settings));
  const env = {
    ...baseEnv(home),
    OPENAI_BASE_URL: `${served.server.url}/v1`,
    OPENAI_API_KEY: "unused",
    OPENAI_MODEL: model,
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
    String(turns),
    "--openai-logging",
    "--openai-logging-dir",
    logs,
  ];
  const r = await runChild(bin!, args, { env, cwd: work, timeoutMs });
  const calls = (existsSync(logs) ? readdirSync(logs) : [])
    .sort()
    .map((f) => JSON.parse(readFileSync(path.join(logs, f), "utf8")) as Record<string, unknown>);
  return { r, calls };
}

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
      const samplingParams = { temperature: 0, max_tokens: OUTPUT_TOKENS, tool_choice: "required" };
      const { r, calls } = await runQwen(served, home, NAME, samplingParams, 2, RUN_MS);
      expect(r.timedOut, r.output).toBe(false);
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

describe.skipIf(!bin || !larger.present)(`${CLIENT.package}@${CLIENT.version} on ${LARGER_CODER}`, () => {
  const served = useCoderServer(1, undefined, larger);
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(path.join(tmpdir(), "toolmask-qwen-real-"));
  });
  afterAll(() => {
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it(
    "tool choice auto: the model calls read_file, the client sends the file back, and the run ends with a text answer",
    async () => {
      const samplingParams = { temperature: 0, max_tokens: OUTPUT_TOKENS };
      const { r, calls } = await runQwen(served, home, LARGER_CODER, samplingParams, 3, LARGER_RUN_MS);
      expect(r.timedOut, r.output).toBe(false);
      expect(r.code, r.output).toBe(0);
      type Choice = {
        message?: { content?: string | null; tool_calls?: Array<{ function: { name: string; arguments: string } }> };
      };
      const answers = calls.map((c) => ((c.response as { choices?: Choice[] } | undefined)?.choices ?? [])[0]?.message);
      expect(answers.length, r.output).toBeGreaterThanOrEqual(2);
      // The first answer: a read_file call on notes.txt.
      const first = answers[0]?.tool_calls ?? [];
      expect(
        first.map((c) => c.function.name),
        r.output,
      ).toEqual(["read_file"]);
      expect(first[0]!.function.arguments).toContain("notes.txt");
      // The file's text went back in the next request.
      expect(JSON.stringify(calls[1]!.request)).toContain("The number is 4721.");
      // The last answer is text and no call: the run ended on its own.
      const last = answers.at(-1);
      expect(last?.tool_calls ?? [], r.output).toEqual([]);
      expect((last?.content ?? "").trim().length, r.output).toBeGreaterThan(0);
    },
    LARGER_RUN_MS + 10_000,
  );
});
