// Prompts built to make tokenizing the work, against the real server: floods of special-token text
// (quadratic in llama.cpp's own split), bodies of 480 KB and 7 MB, clients that leave while their
// prompt is tokenized, and a server closed (or sent SIGTERM) meanwhile. Each is refused from a
// bound on its length where it cannot fit, runs in a slot (count_tokens included), stops when its
// client leaves or the server closes, and the next ordinary request is answered.
// TOOLMASK_TEST_TOKENIZE_HOLD (native/addon/llama_addon.cpp) holds a tokenize whose text carries its
// mark until the tokenize is cancelled: a request that only a working cancel can end.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { request, type ClientRequest } from "node:http";
import { join } from "node:path";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { prepareChat } from "../../src/engine/prepare-chat.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { testModelPath } from "../support/test-model.js";
import { ROOT } from "../support/vocabs.js";
import { fetchWithin, NO_TOKENS } from "../support/timeouts.js";
import { until } from "../support/until.js";

const MARK = "HOLD-THIS-TOKENIZE-UNTIL-CANCELLED";

let model: LlamaModel;
let server: ToolmaskServer;
beforeAll(async () => {
  process.env.TOOLMASK_TEST_TOKENIZE_HOLD = MARK;
  model = await loadModel({ path: testModelPath(), threads: 1 }); // 4 slots, as many as libuv's worker threads
  server = await startServer({ model, port: 0, dialect: "qwen3-coder", maxQueue: 0 });
});
afterAll(async () => {
  await server?.close();
  model?.dispose();
  delete process.env.TOOLMASK_TEST_TOKENIZE_HOLD;
});

interface Answer {
  status: number;
  json: Record<string, unknown> & { error?: { message: string; type: string; code?: string | null } };
}

/** One POST; `sent` sees the request once its body is written (to leave early). */
function post(url: string, path: string, body: unknown, sent?: (req: ClientRequest) => void): Promise<Answer> {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on("data", (c: Buffer) => parts.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, json: JSON.parse(Buffer.concat(parts).toString()) }));
      },
    );
    req.on("error", reject);
    req.end(text, () => sent?.(req));
  });
}

async function health(url = server.url): Promise<{ busy: number; queued: number }> {
  return ((await (await fetchWithin(NO_TOKENS, `${url}/health`)).json()) as { slots: { busy: number; queued: number } })
    .slots;
}

const messages = (content: string) => ({ model: "m", max_tokens: 3, messages: [{ role: "user", content }] });
const counting = (content: string) => ({ model: "m", messages: [{ role: "user", content }] });
const ORDINARY = messages("hi");

/** Requests whose tokenize is held (MARK) and whose clients then leave; resolves once all are running. */
async function heldRequests(n: number, path: string, content: string): Promise<{ leave: () => void }> {
  const reqs: ClientRequest[] = [];
  for (let i = 0; i < n; i++)
    post(server.url, path, counting(`${MARK} ${content}`), (r) => reqs.push(r)).catch(() => {}); // the client leaves
  await until(async () => reqs.length === n && (await health()).busy === n);
  return { leave: () => reqs.forEach((r) => r.destroy()) };
}

describe("special-token floods", () => {
  for (const n of [10_000, 20_000, 100_000])
    it(`${n.toLocaleString("en")} × <|im_start|> in a message: 400 context_length_exceeded from the bound, on every route`, async () => {
      const flood = "<|im_start|>".repeat(n);
      const openai = await post(server.url, "/v1/chat/completions", messages(flood));
      expect(openai.status).toBe(400);
      expect(openai.json.error).toMatchObject({ code: "context_length_exceeded", param: "messages" });
      expect(openai.json.error!.message).toMatch(/^the prompt has at least \d+ tokens but the context holds 4096/);
      for (const [path, body] of [
        ["/v1/messages", messages(flood)],
        ["/v1/messages/count_tokens", counting(flood)],
      ] as const) {
        const r = await post(server.url, path, body);
        expect(r.status).toBe(400);
        expect(r.json).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
        expect(r.json.error!.message).toMatch(/^the prompt has at least \d+ tokens but the context holds 4096/);
      }
      expect((await post(server.url, "/v1/messages", ORDINARY)).status).toBe(200);
    });

  it("a flood that fits is counted as llama.cpp's own llama_tokenize counts the rendered prompt", async () => {
    const content = "<|im_start|><tool_call>".repeat(1000);
    const r = await post(server.url, "/v1/messages/count_tokens", counting(content));
    expect(r.status).toBe(200);
    const { prompt } = prepareChat(model, {
      messages: [{ role: "user", content }],
      dialect: "qwen3-coder",
      mask: false,
    });
    expect(r.json.input_tokens).toBe(model.native.llamaTokenize(prompt, true).length);
  });
});

describe("count_tokens in the slots, and clients that leave", () => {
  it("four 480 KB count_tokens hold every slot (one more gets 429); once their clients leave, their tokenizing stops and the next requests are answered", async () => {
    const held = await heldRequests(4, "/v1/messages/count_tokens", "hello world ".repeat(40_000));
    const refused = await post(server.url, "/v1/messages/count_tokens", counting("hi"));
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    held.leave();
    // Only a cancel ends a held tokenize: the slots come back once the four workers have stopped.
    await until(async () => (await health()).busy === 0);
    expect((await post(server.url, "/v1/messages", ORDINARY)).status).toBe(200);
    expect((await post(server.url, "/v1/messages/count_tokens", counting("hi"))).json.input_tokens).toBeGreaterThan(0);
  });

  it("a generation whose client leaves while its prompt is tokenized stops too", async () => {
    const reqs: ClientRequest[] = [];
    post(server.url, "/v1/messages", messages(`${MARK} hello`), (r) => reqs.push(r)).catch(() => {});
    await until(async () => reqs.length === 1 && (await health()).busy === 1);
    reqs[0]!.destroy();
    await until(async () => (await health()).busy === 0);
    expect((await post(server.url, "/v1/chat/completions", ORDINARY)).status).toBe(200);
  });

  it("7 MB bodies: refused from the bound before tokenizing, and one whose client leaves at once frees its slot", async () => {
    for (const content of ["hello world ".repeat(600_000), "<|im_start|>".repeat(600_000)]) {
      for (const path of ["/v1/messages", "/v1/messages/count_tokens"]) {
        const r = await post(server.url, path, path.endsWith("count_tokens") ? counting(content) : messages(content));
        expect(r.status).toBe(400);
        expect(r.json.error!.message).toMatch(/^the prompt has at least \d+ tokens/);
      }
      post(server.url, "/v1/messages/count_tokens", counting(content), (r) => r.destroy()).catch(() => {});
    }
    await until(async () => (await health()).busy === 0);
    expect((await post(server.url, "/v1/messages", ORDINARY)).status).toBe(200);
  });
});

describe("closing while a prompt is tokenized", () => {
  it("close() stops the tokenizing, answers the request 503 and returns", async () => {
    const own = await startServer({ model, port: 0, dialect: "qwen3-coder" });
    const answer = post(own.url, "/v1/messages/count_tokens", counting(`${MARK} hello`));
    await until(async () => (await health(own.url)).busy === 1);
    await own.close(); // would wait for ever on a tokenize that is not stopped
    expect(await answer).toMatchObject({
      status: 503,
      json: { type: "error", error: { type: "overloaded_error", message: "the server is shutting down" } },
    });
  });

  it("`toolmask serve` exits 0 on SIGTERM while a prompt is tokenized", async () => {
    const cli = join(ROOT, "dist", "server", "cli.js");
    const script = `import { serveCommand } from ${JSON.stringify(cli)}; process.exitCode = await serveCommand(process.argv.slice(1));`;
    const child = spawn(
      process.execPath,
      ["--input-type=module", "-e", script, "--", "--model", testModelPath(), "--port", "0", "--threads", "1"],
      { cwd: ROOT, env: { ...process.env, TOOLMASK_TEST_TOKENIZE_HOLD: MARK } },
    );
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((res) => child.on("exit", (c) => res(c)));
    await until(async () => /listening on/.test(out));
    const url = /listening on (\S+)/.exec(out)![1]!;
    const answer = post(url, "/v1/messages/count_tokens", counting(`${MARK} hello`)).catch((e: Error) => e);
    await until(async () => (await health(url)).busy === 1);
    child.kill("SIGTERM");
    expect(await exited).toBe(0); // the process ends only once no worker thread is left running
    expect(await answer).toMatchObject({ status: 503 });
  });
});
