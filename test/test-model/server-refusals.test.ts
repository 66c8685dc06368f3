// A tool schema the lowering refuses is refused on every route the same way: a 400 whose message
// is the library's (`<path>: … not supported; <what to do>`, the same in every dialect: test/
// no-model/refusals.test.ts) with the path spelled as the route's request spells the tool
// (`tools[0].function.parameters` on chat completions, `tools[0].parameters` on Responses,
// `tools[0].input_schema` on Messages), the rest of the message unchanged, never a 500. Sent
// through the real openai and @anthropic-ai/sdk clients to servers of the test model in its
// template's dialect (hermes) and in qwen3-coder (XML), streamed and not, to count_tokens, and to
// gateways (the openai engine's verify-only path, in hermes and qwen3-coder, and llama-server's).
// The schemas: every keyword of UNSUPPORTED_HINTS (src/grammar/json-schema/keywords.ts), every
// case of the keyword matrix (scripts/lib/keyword-matrix.mjs) the lowering refuses, the
// parameters' top-level refusals (src/dialects/parameters-top.ts), and property names that name a
// request field.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { matrixCases, paramTools, refusalOf } from "../../scripts/lib/keyword-matrix.mjs";
import { TOP_LEVEL_HINTS } from "../../src/dialects/parameters-top.js";
import { UNSUPPORTED_HINTS } from "../../src/grammar/json-schema/keywords.js";
import { getDialect } from "../../src/index.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { checkToolLimits } from "../../src/parser/tool-limits.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { toApiError } from "../../src/server/errors.js";
import { anthropicClient, client, raised } from "../support/server-fixtures.js";
import { testModelPath } from "../support/test-model.js";
import { NO_TOKENS, timeoutForMeasured } from "../support/timeouts.js";

type Tool = { type: "function"; function: { name: string; parameters: Record<string, unknown> } };
interface Case {
  name: string;
  tools: Tool[];
}

const fn = (parameters: Record<string, unknown>): Tool[] => [{ type: "function", function: { name: "f", parameters } }];
const CASES: Case[] = [
  ...Object.keys(UNSUPPORTED_HINTS).map((kw) => ({
    name: `"${kw}" in a parameter`,
    tools: fn({ type: "object", properties: { v: { type: "string", [kw]: {} } }, required: ["v"] }),
  })),
  ...Object.keys(TOP_LEVEL_HINTS).map((kw) => ({
    name: `"${kw}" at the parameters' top`,
    tools: fn({ type: "object", properties: { v: { type: "string" } }, [kw]: kw === "$ref" ? "#" : true }),
  })),
  // names of request fields, which a route's renaming must leave as they are
  ...["max_tokens", "max_output_tokens", "function", "input_schema", "parameters", "name"].flatMap((name) => [
    {
      name: `a property named ${name}`,
      tools: fn({ type: "object", properties: { [name]: { type: "integer", multipleOf: 2 } } }),
    },
    { name: `a required name ${name} not declared`, tools: fn({ type: "object", properties: {}, required: [name] }) },
  ]),
  ...matrixCases(getDialect("hermes"))
    .filter((c) => libraryRefusal("hermes", paramTools(c.schema)) !== undefined)
    .map((c) => ({ name: `matrix ${c.name}`, tools: paramTools(c.schema) as Tool[] })),
];

/** The library's refusal of `tools` in `dialect` (the lowering's checks), or undefined. */
function libraryRefusal(dialect: string, tools: unknown[]) {
  try {
    checkToolLimits({ dialect, tools: structuredClone(tools), toolChoice: "auto" });
    return undefined;
  } catch (e) {
    return refusalOf(e, toApiError);
  }
}

const PARAMS = "tools[0].function.parameters";
/** The library's message with its paths (the first, and any it names after) spelled as a route's request spells the tool's parameters. */
function asRoute(message: string, spelled: string): string {
  expect(message.startsWith(PARAMS)).toBe(true);
  return message.split(PARAMS).join(spelled);
}

let model: LlamaModel;
let upstream: Server;
const servers: Record<string, ToolmaskServer> = {};
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
  servers.hermes = await startServer({ model, port: 0 });
  servers["qwen3-coder"] = await startServer({ model, port: 0, dialect: "qwen3-coder" });
  // an upstream that answers "hi" to everything: a gateway must refuse before asking it
  upstream = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      if (req.method === "GET") return res.end(JSON.stringify({ data: [{ id: "up" }] }));
      res.end(
        JSON.stringify({ content: "hi", stop: true, stop_type: "eos", tokens_predicted: 1, tokens_evaluated: 1 }),
      );
    });
  });
  await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const gateway = (engine: "openai" | "llama-server", dialect?: string) =>
    startServer({
      port: 0,
      ...(dialect ? { dialect } : {}),
      upstreams: {
        urls: [url],
        engine,
        healthInterval: 100,
        ...(engine === "openai" ? {} : { tokenizer: testModelPath() }),
      },
    });
  servers["gateway openai (verify-only), hermes"] = await gateway("openai");
  servers["gateway openai (verify-only), qwen3-coder"] = await gateway("openai", "qwen3-coder");
  servers["gateway llama-server, hermes"] = await gateway("llama-server");
});
afterAll(async () => {
  for (const s of Object.values(servers)) await s.close();
  await new Promise((r) => upstream?.close(r));
  model?.dispose();
});

const DIALECT: Record<string, string> = {
  hermes: "hermes",
  "qwen3-coder": "qwen3-coder",
  "gateway openai (verify-only), hermes": "hermes",
  "gateway openai (verify-only), qwen3-coder": "qwen3-coder",
  "gateway llama-server, hermes": "hermes",
};
const user = [{ role: "user" as const, content: "hi" }];

/** The routes a server serves and what each must raise for a refusal whose library message is `m`. */
function routes(server: string) {
  const s = servers[server]!;
  const openai = client(s.url, NO_TOKENS);
  const anthropic = anthropicClient(s.url, NO_TOKENS);
  const local = !server.startsWith("gateway");
  const chatError = (m: string, code: string) => ({
    openai: "BadRequestError",
    status: 400,
    error: { message: m, type: "invalid_request_error", param: "tools", code },
  });
  const messagesError = (m: string) => ({
    anthropic: "BadRequestError",
    status: 400,
    error: { type: "invalid_request_error", message: asRoute(m, "tools[0].input_schema") },
  });
  const asMessages = (tools: Tool[]) =>
    tools.map((t) => ({ name: t.function.name, input_schema: t.function.parameters })) as never;
  const asResponses = (tools: Tool[]) =>
    tools.map((t) => ({
      type: "function",
      name: t.function.name,
      parameters: t.function.parameters,
      strict: false,
    })) as never;
  const list: Array<{
    route: string;
    send: (tools: Tool[]) => Promise<unknown>;
    want: (m: string, code: string) => unknown;
  }> = [];
  for (const stream of [false, true]) {
    const tag = stream ? " (stream)" : "";
    list.push(
      {
        route: `chat/completions${tag}`,
        send: (tools) =>
          raised(openai.chat.completions.create({ model: "m", messages: user, tools, max_tokens: 1, stream })),
        want: chatError,
      },
      {
        route: `responses${tag}`,
        send: (tools) =>
          raised(
            openai.responses.create({
              model: "m",
              input: "hi",
              tools: asResponses(tools),
              max_output_tokens: 16,
              stream,
            }),
          ),
        want: (m, code) => chatError(asRoute(m, "tools[0].parameters"), code),
      },
      {
        route: `messages${tag}`,
        send: (tools) =>
          raised(
            anthropic.messages.create({ model: "m", max_tokens: 1, messages: user, tools: asMessages(tools), stream }),
          ),
        want: messagesError,
      },
    );
  }
  if (local)
    list.push({
      route: "messages/count_tokens",
      send: (tools) => raised(anthropic.messages.countTokens({ model: "m", messages: user, tools: asMessages(tools) })),
      want: messagesError,
    });
  return list;
}

// Nothing is decoded: a server's cases on all its routes (about 450 requests) took at most 20 s,
// with the keyword matrix and the client-tools test running beside them on 2 cores.
const TIMEOUT_MS = timeoutForMeasured(20_000);

describe("a refused tool schema: the same 400 on every route", () => {
  it("the cases are refused by the library, the same in hermes and qwen3-coder", () => {
    expect(CASES.length).toBeGreaterThan(50);
    const differ = CASES.filter(
      (c) =>
        JSON.stringify(libraryRefusal("hermes", c.tools)) !== JSON.stringify(libraryRefusal("qwen3-coder", c.tools)),
    );
    expect(differ.map((c) => c.name)).toEqual([]);
    for (const c of CASES) expect(libraryRefusal("hermes", c.tools), c.name).toMatchObject({ status: 400 });
  });

  it.each(Object.keys(DIALECT))(
    "%s",
    async (server) => {
      const wrong: unknown[] = [];
      // one set of clients for every case: each client keeps its connections open for the
      // server's idle timeout, and a set per case opened more than the server's 256 at once
      const serverRoutes = routes(server);
      for (const c of CASES) {
        const lib = libraryRefusal(DIALECT[server]!, c.tools)!;
        for (const r of serverRoutes) {
          const got = await r.send(structuredClone(c.tools));
          const want = r.want(lib.message, lib.code!);
          if (!isDeepStrictEqual(got, want)) wrong.push({ case: c.name, route: r.route, got, want });
        }
      }
      expect(wrong.slice(0, 6), `${wrong.length} answers differ`).toEqual([]);
    },
    TIMEOUT_MS,
  );
});
