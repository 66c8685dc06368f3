// Bad requests to a gateway (src/gateway/) are refused as the server refuses them, before any
// upstream is asked: a Messages message of no content blocks, and tools whose schemas no call can
// satisfy (a parameter that is its own $ref, an empty enum, a required parameter of schema false),
// with llama-server's grammar (exported to GBNF) and with the openai engine, which takes no grammar
// and verifies the answers: each a 400 in the route's shape naming the field, then a request served.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { testModelPath } from "../support/test-model.js";
import { fetchWithin, NO_TOKENS } from "../support/timeouts.js";

/** An upstream that answers every chat request "hi" (llama-server's and OpenAI's fields), and counts them. */
let upstream: Server;
let asked = 0;
const gateways: Record<string, ToolmaskServer> = {};
beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      if (req.method === "GET") return res.end(JSON.stringify({ data: [{ id: "up" }] }));
      asked++;
      res.end(
        JSON.stringify({
          content: "hi",
          stop: true,
          stop_type: "eos",
          tokens_predicted: 1,
          tokens_evaluated: 1,
          choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
        }),
      );
    });
  });
  await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  gateways["llama-server"] = await startServer({
    port: 0,
    upstreams: { urls: [url], engine: "llama-server", tokenizer: testModelPath(), healthInterval: 100 },
  });
  gateways.openai = await startServer({ port: 0, upstreams: { urls: [url], engine: "openai", healthInterval: 100 } });
});
afterAll(async () => {
  for (const g of Object.values(gateways)) await g.close();
  await new Promise((r) => upstream?.close(r));
});

// No decoding here: the upstream answers at once.
const post = async (g: ToolmaskServer, path: string, body: unknown) => {
  const r = await fetchWithin(NO_TOKENS, `${g.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: r.status, json: (await r.json()) as Record<string, any> };
};

const user = (content: unknown) => ({ role: "user", content });
const selfRef = { type: "object", properties: { x: { $ref: "#/properties/x" } }, required: ["x"] };
const schemas: Array<[string, unknown, RegExp]> = [
  ["a parameter that is its own $ref", selfRef, /properties\.x\.\$ref: "\$ref": "#\/properties\/x" matches no value/],
  [
    "an empty enum",
    { type: "object", properties: { x: { enum: [] } }, required: ["x"] },
    /"enum" must be a non-empty array/,
  ],
  [
    "a required parameter of schema false",
    { type: "object", properties: { x: false }, required: ["x"] },
    /"x" is required but its schema matches no value/,
  ],
];

describe.each(["llama-server", "openai"])("a gateway (%s engine)", (engine) => {
  const served = async () => {
    const r = await post(gateways[engine]!, "/v1/chat/completions", {
      model: "m",
      messages: [user("hi")],
      max_tokens: 2,
    });
    expect(r.status).toBe(200);
    expect(r.json.choices[0].message.content).toBe("hi");
  };

  it("a Messages message of no content blocks: 400 naming it, whole and streamed, the upstream not asked", async () => {
    for (const stream of [false, true]) {
      const before = asked;
      const r = await post(gateways[engine]!, "/v1/messages", {
        model: "m",
        max_tokens: 2,
        stream,
        messages: [user([])],
      });
      expect(r.status).toBe(400);
      expect(r.json).toEqual({
        type: "error",
        error: {
          type: "invalid_request_error",
          message: expect.stringMatching(/^messages\[0\]\.content is an empty array/),
        },
      });
      expect(asked).toBe(before);
      await served();
    }
  });

  it.each(schemas)(
    "%s, tool_choice required: 400 param tools on every route, the upstream not asked",
    async (_n, parameters, message) => {
      const routes: Array<[string, unknown, (j: Record<string, any>) => unknown]> = [
        [
          "/v1/chat/completions",
          {
            model: "m",
            messages: [user("hi")],
            max_tokens: 64,
            tools: [{ type: "function", function: { name: "f", parameters } }],
            tool_choice: "required",
          },
          (j) => j.error,
        ],
        [
          "/v1/responses",
          {
            model: "m",
            input: "hi",
            max_output_tokens: 64,
            tools: [{ type: "function", name: "f", parameters }],
            tool_choice: "required",
          },
          (j) => j.error,
        ],
        [
          "/v1/messages",
          {
            model: "m",
            messages: [user("hi")],
            max_tokens: 64,
            tools: [{ name: "f", input_schema: parameters }],
            tool_choice: { type: "any" },
          },
          (j) => ({ ...j.error, param: "tools" }),
        ],
      ];
      for (const [path, body, errorOf] of routes) {
        const before = asked;
        const r = await post(gateways[engine]!, path, body);
        expect(r.status, `${path}: ${JSON.stringify(r.json)}`).toBe(400);
        expect(errorOf(r.json)).toMatchObject({
          type: "invalid_request_error",
          param: "tools",
          message: expect.stringMatching(message),
        });
        expect(asked).toBe(before);
        await served();
      }
    },
  );
});
