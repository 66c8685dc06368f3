// The gateway over llama.cpp's own llama-server serving a real model (Qwen2.5-Coder 0.5B, from
// `npm run models`), through the real openai client: masked tool_choice "required" answers hold
// calls valid against their tools with the grammar confirmed, the same streamed and whole
// (test/support/both-ways.ts), and greedy answers through llama-server + our GBNF are compared with
// our own engine's on the same file (the same prebuilt llama.cpp libraries decode both). A model
// that is not fetched is skipped with the line that fetches it, except under CI=true.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "../../src/engine/generate.js";
import { defaultThreads, loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { startLlamaServer, type LlamaServerProcess } from "../support/llama-server-process.js";
import { listModels } from "../support/models-script.js";
import { chatBothWays } from "../support/both-ways.js";
import { callProblems, client, type FunctionTool } from "../support/server-fixtures.js";
import { FILE_TOOLS } from "../support/tools.js";
import { timeoutFor, type Work } from "../support/timeouts.js";

const NAME = "qwen2.5-coder-0.5b-instruct";
const entry = (await listModels()).find((m) => m.name === NAME)!;
const inCi = process.env.CI === "true";
if (!entry.present && !inCi) console.warn(`gateway-real: ${NAME} not fetched; run \`npm run models\``);

const PROMPTS = ["Read the file /etc/hosts.", "Write 'hello' to notes.txt.", "In main.py, replace 'foo' with 'bar'."];
/** One request: at most 96 tokens decoded, on the real model (llama-server's or ours). */
const REQUEST: Work = { decode: 96, model: "qwen2.5-coder-0.5b" };
/** Each prompt: three requests through the gateway (whole, streamed, and one of a single token first) and one generate() here. */
const BY_WORK = {
  timeout: timeoutFor({ ...REQUEST, decode: (96 * 3 + 1) * PROMPTS.length, requests: 4 * PROMPTS.length }),
};

describe.skipIf(!entry.present && !inCi)(`the gateway over llama-server serving ${NAME}`, BY_WORK, () => {
  let upstream: LlamaServerProcess;
  let gateway: ToolmaskServer;
  let model: LlamaModel;
  beforeAll(async () => {
    if (!entry.present) throw new Error(`CI=true and ${entry.path} is missing: run npm run models`);
    upstream = await startLlamaServer(entry.path, ["-t", String(defaultThreads()), "-tb", String(defaultThreads())]);
    gateway = await startServer({
      port: 0,
      upstreams: { urls: [upstream.url], engine: "llama-server", tokenizer: entry.path },
    });
    model = await loadModel({
      path: entry.path,
      gpu: false,
      parallel: 1,
      contextSize: 4096,
      threads: defaultThreads(),
    });
  }, 1_800_000);
  afterAll(async () => {
    await gateway?.close();
    await upstream?.kill();
    model?.dispose();
  });

  it("greedy, tool_choice required: valid calls, the grammar confirmed, and the calls our engine makes", async () => {
    const api = client(gateway.url, REQUEST);
    const rows: string[] = [];
    let same = 0;
    for (const prompt of PROMPTS) {
      const messages = [{ role: "user" as const, content: prompt }];
      const params = {
        model: NAME,
        messages,
        tools: FILE_TOOLS as FunctionTool[],
        tool_choice: "required" as const,
        temperature: 0,
        max_tokens: 96,
      };
      // llama-server's logits for a prompt evaluated whole differ from those for the same prompt
      // read from its cache (its README: cache_prompt "can cause nondeterministic results"); greedy
      // qwen2.5-coder then ended one answer after its fenced call and wrote 12 newline tokens more
      // in the other. One token asked first puts the prompt in the cache, so the whole and the
      // streamed answer compared below both decode from it.
      await api.chat.completions.create({ ...params, max_tokens: 1 });
      const r = await chatBothWays(api, params);
      const choice = r.choices[0]!;
      expect((r as unknown as { toolmask: { grammar: string } }).toolmask.grammar).toBe("confirmed");
      expect(choice.finish_reason, prompt).toBe("tool_calls");
      expect(callProblems(choice.message.tool_calls as never, FILE_TOOLS as FunctionTool[]), prompt).toBe("");
      const ours = await generate(model, {
        messages,
        tools: FILE_TOOLS,
        toolChoice: "required",
        temperature: 0,
        maxTokens: 96,
      });
      const a = JSON.stringify(choice.message.tool_calls?.map((c) => (c as { function: unknown }).function));
      const b = JSON.stringify(ours.message.tool_calls?.map((c) => c.function));
      if (a === b) same++;
      else rows.push(`${prompt}: llama-server ${a} / ours ${b} (forced ${ours.decode.forcedTokens} tokens)`);
    }
    console.log(`${NAME} greedy: ${same}/${PROMPTS.length} the same calls\n  ${rows.join("\n  ")}`);
    expect(same, rows.join("\n")).toBe(PROMPTS.length);
  });
});
