// The Host header against DNS rebinding, and error bodies that never show where the model is on
// disk. A loopback server answers loopback host names only (any port) unless told more; a server
// bound to 0.0.0.0 answers any; a refusal is a 403 in OpenAI's shape, before the API key is looked
// at. Errors whose library message names the model's path (its chat template refusing, a model
// without a template, a template that overflows on deep arguments) reach the client with the
// model's id in its place.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel, writeTestModel, type LlamaModel } from "../../src/index.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { testModelPath } from "../support/test-model.js";
import { rawExchange, type RawExchange } from "../support/raw-http.js";
import { fetchWithin } from "../support/timeouts.js";

let model: LlamaModel;
let loopback: ToolmaskServer;
let keyed: ToolmaskServer;
let named: ToolmaskServer;
let open: ToolmaskServer;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
  loopback = await startServer({ model, port: 0 });
  keyed = await startServer({ model, port: 0, apiKey: "k" });
  named = await startServer({ model, port: 0, allowedHosts: ["my.box", "192.168.1.5"] });
  open = await startServer({ model, port: 0, host: "0.0.0.0" });
});
afterAll(async () => {
  for (const s of [loopback, keyed, named, open]) await s?.close();
  model?.dispose();
});

/** GET path with exactly this Host header (or none), on a fresh connection. */
function withHost(
  server: ToolmaskServer,
  host: string | undefined,
  p = "/health",
  version = "1.1",
  headers: Record<string, string> = {},
): Promise<RawExchange> {
  const port = new URL(server.url).port;
  const url = `http://127.0.0.1:${port}`;
  const lines = [
    `GET ${p} HTTP/${version}`,
    ...(host !== undefined ? [`Host: ${host}`] : []),
    "Connection: close",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return rawExchange(url, (s) => {
    s.write(`${lines.join("\r\n")}\r\n\r\n`);
  });
}

function expectRefused(r: RawExchange, status: number, code: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.headers["content-type"]).toMatch(/application\/json/);
  expect(r.json).toMatchObject({ error: { type: "invalid_request_error", code, param: null } });
}

describe("Host header", () => {
  it("a loopback server refuses other names with a 403 that says how to allow them, on every route", async () => {
    for (const host of [
      "evil.example",
      "evil.example:8080",
      "127.0.0.1.evil.example",
      "localhost.evil.example",
      "10.0.0.1",
    ]) {
      for (const p of ["/health", "/v1/models", "/v1/chat/completions", "/nope"]) {
        const r = await withHost(loopback, host, p);
        expectRefused(r, 403, "host_not_allowed");
        expect((r.json as { error: { message: string } }).error.message).toMatch(/--allowed-hosts/);
      }
    }
  });

  it("a loopback server answers localhost, 127.0.0.1 and [::1] with any port, in any case", async () => {
    for (const host of [
      "localhost",
      "localhost:8080",
      "LOCALHOST",
      "localhost.",
      "127.0.0.1",
      "127.0.0.1:1",
      "[::1]",
      "[::1]:8080",
    ]) {
      const r = await withHost(loopback, host);
      expect(`${host}: ${r.status}`).toBe(`${host}: 200`);
    }
  });

  it("refuses before the API key is checked: a rebinding page learns nothing", async () => {
    expectRefused(
      await withHost(keyed, "evil.example", "/v1/models", "1.1", { authorization: "Bearer k" }),
      403,
      "host_not_allowed",
    );
    expect((await withHost(keyed, "localhost", "/v1/models", "1.1", { authorization: "Bearer k" })).status).toBe(200);
    expect((await withHost(keyed, "localhost", "/v1/models")).status).toBe(401);
  });

  it("an HTTP/1.1 request without Host gets a 400 in OpenAI's shape", async () => {
    expectRefused(await withHost(loopback, undefined), 400, "missing_host");
    expectRefused(await withHost(loopback, undefined, "/health", "1.0"), 400, "missing_host");
  });

  it("allowedHosts adds names to the loopback ones", async () => {
    for (const host of ["my.box", "MY.BOX:443", "192.168.1.5:8080", "localhost:1"])
      expect(`${host}: ${(await withHost(named, host)).status}`).toBe(`${host}: 200`);
    expectRefused(await withHost(named, "evil.example"), 403, "host_not_allowed");
  });

  it("bound to 0.0.0.0, any name is answered", async () => {
    for (const host of ["evil.example", "my.box:1", "10.1.2.3"]) expect((await withHost(open, host)).status).toBe(200);
    expect((await withHost(open, undefined, "/health", "1.0")).status).toBe(200);
  });

  it("bad allowedHosts values are refused when the server starts", async () => {
    await expect(startServer({ model, port: 0, allowedHosts: ["http://x/"] })).rejects.toThrow(
      /allowedHosts must be an array of host names without ports/,
    );
    await expect(startServer({ model, port: 0, allowedHosts: ["box:80"] })).rejects.toThrow(/allowedHosts/);
    await expect(startServer({ model, port: 0, allowedHosts: "my.box" as unknown as string[] })).rejects.toThrow(
      /allowedHosts/,
    );
  });
});

describe("the model's path in error bodies", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "toolmask-secret-folder-"));
  // It names <tool_call> (so the hermes dialect, which hands tool messages to the template as they are).
  const REFUSING =
    "{# <tool_call> #}{% if messages[0].role == 'tool' %}{{ raise_exception('a conversation cannot open with a tool result') }}{% endif %}{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";
  const models: LlamaModel[] = [];
  const servers: ToolmaskServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
    for (const m of models) m.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  async function serve(file: string, chatTemplate: string): Promise<ToolmaskServer> {
    writeTestModel({ path: path.join(dir, file), seed: 1, chatTemplate });
    const m = await loadModel({ path: path.join(dir, file), gpu: false, threads: 1 });
    models.push(m);
    const s = await startServer({ model: m, port: 0 });
    servers.push(s);
    return s;
  }
  const post = async (s: ToolmaskServer, body: unknown, stream = false) => {
    // Each request here decodes at most 2 tokens.
    const r = await fetchWithin({ decode: 2 }, `${s.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...(body as object), stream }),
    });
    return { status: r.status, text: await r.text() };
  };

  it("never appears: template refusals, a model without a template, a template overflowing on deep arguments", async () => {
    const refusing = await serve("refusing.gguf", REFUSING);
    const bare = await serve("bare.gguf", "");
    const deep = `{"a": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    const answers = [
      await post(refusing, { messages: [{ role: "tool", tool_call_id: "c", content: "r" }], max_tokens: 2 }),
      await post(refusing, { messages: [{ role: "tool", tool_call_id: "c", content: "r" }], max_tokens: 2 }, true),
      await post(bare, { messages: [{ role: "user", content: "hi" }], max_tokens: 2 }),
      await post(loopback, {
        messages: [
          { role: "user", content: "hi" },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: deep } }],
          },
          { role: "tool", tool_call_id: "c", content: "ok" },
        ],
        max_tokens: 2,
      }),
    ];
    for (const a of answers) {
      expect(a.status, a.text).toBeGreaterThanOrEqual(400);
      expect(a.status, a.text).toBeLessThan(500);
      expect(a.text).not.toContain(dir);
      expect(a.text).not.toContain(path.dirname(testModelPath()));
      expect(a.text).not.toContain(".gguf");
    }
    // The model is named by its id instead, so the message still says which model.
    expect(answers[0]!.text).toMatch(/refusing: .*cannot open with a tool result/);
    expect(answers[2]!.text).toMatch(/bare has no chat template/);
  });
});
