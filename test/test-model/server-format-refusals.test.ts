// A response format whose schema the lowering refuses is refused on every route as a tool schema is
// (server-refusals.test.ts): a 400 whose message is the library's with the path spelled as the
// route's request spells the schema (`response_format.json_schema.schema` on chat completions,
// `text.format.schema` on Responses, `output_config.format.schema` on Messages and count_tokens),
// whole and streamed, never a 500. Through the real openai and @anthropic-ai/sdk clients to a
// server of the test model (hermes). The schemas: every keyword of UNSUPPORTED_HINTS in a property,
// and every object schema of the keyword matrix (scripts/lib/keyword-matrix.mjs) the lowering
// refuses, each as the whole response format.
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { matrixCases, refusalOf } from "../../scripts/lib/keyword-matrix.mjs";
import { UNSUPPORTED_HINTS } from "../../src/grammar/json-schema/keywords.js";
import { getDialect } from "../../src/index.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { checkToolLimits } from "../../src/parser/tool-limits.js";
import { toApiError } from "../../src/server/errors.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { routeSchemaPaths } from "../../src/server/schema-paths.js";
import { anthropicClient, client, raised } from "../support/server-fixtures.js";
import { testModelPath } from "../support/test-model.js";
import { NO_TOKENS, timeoutForMeasured } from "../support/timeouts.js";

type Schema = Record<string, unknown>;
const isObj = (x: unknown): x is Schema => typeof x === "object" && x !== null && !Array.isArray(x);
const CASES: Array<{ name: string; schema: Schema }> = [
  ...Object.keys(UNSUPPORTED_HINTS).map((kw) => ({
    name: `"${kw}" in a property`,
    schema: { type: "object", properties: { v: { type: "string", [kw]: {} } }, required: ["v"] },
  })),
  ...matrixCases(getDialect("hermes"))
    .filter((c) => isObj(c.schema) && libraryRefusal(c.schema as Schema) !== undefined)
    .map((c) => ({ name: `matrix ${c.name}`, schema: c.schema as Schema })),
];

/** The library's refusal of `schema` as a response format (hermes), or undefined. */
function libraryRefusal(schema: Schema) {
  try {
    checkToolLimits({ dialect: "hermes", responseFormat: { type: "json_schema", schema: structuredClone(schema) } });
    return undefined;
  } catch (e) {
    return refusalOf(e, toApiError);
  }
}

let model: LlamaModel;
let server: ToolmaskServer;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
  server = await startServer({ model, port: 0 });
});
afterAll(async () => {
  await server?.close();
  model?.dispose();
});

const user = [{ role: "user" as const, content: "hi" }];

// Nothing is decoded: ~70 cases × 7 routes took 6 s on 2 cores.
it(
  "a refused response-format schema: the same 400 on every route, whole and streamed",
  async () => {
    expect(CASES.length).toBeGreaterThan(40);
    const openai = client(server.url, NO_TOKENS);
    const anthropic = anthropicClient(server.url, NO_TOKENS);
    const openaiError = (message: string, param: string, code: string) => ({
      openai: "BadRequestError",
      status: 400,
      error: { message, type: "invalid_request_error", param, code },
    });
    const messagesError = (message: string) => ({
      anthropic: "BadRequestError",
      status: 400,
      error: { type: "invalid_request_error", message },
    });
    const wrong: unknown[] = [];
    for (const c of CASES) {
      const lib = libraryRefusal(c.schema)!;
      const rf = { type: "json_schema", json_schema: { name: "x", schema: c.schema } } as const;
      const format = { type: "json_schema", name: "x", schema: c.schema } as const;
      const output = { format: { type: "json_schema", schema: c.schema } } as never;
      const sends: Array<[string, () => Promise<unknown>, unknown]> = [];
      for (const stream of [false, true]) {
        const tag = stream ? " (stream)" : "";
        sends.push(
          [
            `chat${tag}`,
            () =>
              openai.chat.completions.create({
                model: "m",
                messages: user,
                response_format: rf,
                max_tokens: 64,
                stream,
              }),
            openaiError(routeSchemaPaths(lib.message, "chat"), "response_format", lib.code!),
          ],
          [
            `responses${tag}`,
            () => openai.responses.create({ model: "m", input: "hi", text: { format }, max_output_tokens: 64, stream }),
            openaiError(routeSchemaPaths(lib.message, "responses"), "text.format", lib.code!),
          ],
          [
            `messages${tag}`,
            () =>
              anthropic.messages.create({ model: "m", max_tokens: 64, messages: user, output_config: output, stream }),
            messagesError(routeSchemaPaths(lib.message, "messages")),
          ],
        );
      }
      sends.push([
        "count_tokens",
        () => anthropic.messages.countTokens({ model: "m", messages: user, output_config: output } as never),
        messagesError(routeSchemaPaths(lib.message, "messages")),
      ]);
      for (const [route, send, want] of sends) {
        const got = await raised(send());
        if (!isDeepStrictEqual(got, want)) wrong.push({ case: c.name, route, got, want });
      }
    }
    expect(wrong.slice(0, 6), `${wrong.length} answers differ`).toEqual([]);
  },
  timeoutForMeasured(20_000),
);
