// The response format (src/dialects/response-format.ts): the answer's content held to a JSON schema
// by the same lowering as tool arguments. Random walks of the grammar over Qwen3's vocabulary,
// from the answer's start, end in content that ajv takes, and the parser says so ("valid", the
// value in `parsed`) for the whole text and for every split of it; beside tools under toolChoice
// "auto" a walk ends in calls or such content; with a thought, the thought first. A schema the
// lowering refuses is refused with the tool refusal's error, keyword and message, its path rooted
// at the response format. A cut answer is "cut" with no value; content that does not fit is
// "invalid" with no value.
import { describe, expect, it } from "vitest";
import {
  buildToolGrammar,
  compileGrammar,
  getDialect,
  parseToolCalls,
  resolveRequest,
  ResponseFormatError,
  type ParserOptions,
  type ResponseFormat,
} from "../../src/index.js";
import { dirname } from "node:path";
import { prepareChat } from "../../src/engine/prepare-chat.js";
import { loadModelSource } from "../../src/gateway/model-source.js";
import { grammarAccepts } from "../../src/parser/validate.js";
import { toApiError } from "../../src/server/errors.js";
import { ownCases, paramTools, refusalOf } from "../../scripts/lib/keyword-matrix.mjs";
import { UNSUPPORTED_HINTS } from "../../src/grammar/json-schema/keywords.js";
import { writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";
import { ajvWithFormats } from "../support/ajv-formats.js";
import { runChunks } from "../support/stream-run.js";
import { fn } from "../support/tools.js";
import { QWEN3_TOKENIZER, qwen3 } from "../support/vocabs.js";

const PERSON = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1, maxLength: 12 },
    age: { type: "integer", minimum: 0, maximum: 150 },
    email: { type: "string", format: "email" },
    tags: { type: "array", items: { enum: ["a", "b", "c"] }, maxItems: 3 },
    when: { type: "string", format: "date" },
  },
  required: ["name", "age"],
  additionalProperties: false,
};
const SCHEMAS: Array<[string, Record<string, unknown>]> = [
  ["person", PERSON],
  [
    "anyOf of two shapes",
    {
      anyOf: [
        { type: "object", properties: { a: { type: "number" } }, required: ["a"] },
        { type: "array", items: { type: "boolean" } },
      ],
    },
  ],
  [
    "a pattern",
    { type: "object", properties: { id: { type: "string", pattern: "^[A-Z]{2}-[0-9]{3}$" } }, required: ["id"] },
  ],
  [
    "$defs and $ref",
    {
      $defs: { p: { type: "object", properties: { x: { type: "integer" } }, required: ["x"] } },
      type: "array",
      items: { $ref: "#/$defs/p" },
      minItems: 1,
    },
  ],
  // the matrix's own cases (draft 2020-12 keywords, formats), each as a whole response format
  ...ownCases(getDialect("hermes")).map((c): [string, Record<string, unknown>] => [
    c.name,
    c.schema as Record<string, unknown>,
  ]),
];

const ajv = ajvWithFormats("2020");
const every = (text: string) => Array.from({ length: text.length - 1 }, (_, i) => i + 1);

interface Walked {
  texts: string[];
  stuck: number;
}
/** Finished random walks of the request's grammar from the answer's start, as texts. */
function walks(o: ParserOptions, count: number): Walked {
  const v = qwen3();
  const m = compileGrammar(buildToolGrammar(o), v).createMatcher();
  const all = m.randomWalks({
    count,
    seed: 11,
    maxTokens: 1500,
    leaveProbability: 0.9,
    shortProbability: 0.9,
    endProbability: 0.9,
    probes: 8,
  });
  const texts = all
    .filter((w) => w.terminated)
    .map((w) => Buffer.concat([...w.tokens.subarray(0, -1)].map((id) => v.tokenBytes(id))).toString("utf8"));
  return { texts, stuck: all.filter((w) => w.stuck).length };
}

/** What is wrong with an answer without calls: its verdict, its value against ajv, the same for every split. */
function contentProblem(text: string, o: ParserOptions, schema: object): string | undefined {
  const request = { ...o, ...resolveRequest(o) };
  const r = parseToolCalls(text, request);
  // A free-form object's keys the grammar cannot count: a key given twice is the parser's verdict
  // alone (invalid, as in a call's arguments; docs/dialects.md).
  if (r.structured?.status === "invalid" && r.structured.reason?.includes("given twice")) return undefined;
  // A number no double holds as written (a long integer): valid, given as no value.
  if (r.structured?.status === "valid" && r.structured.reason?.includes("no plain value holds it"))
    return ajv.compile(schema)(JSON.parse(text)) ? undefined : `ajv refuses ${text}`;
  if (r.structured?.status !== "valid") return `verdict ${JSON.stringify(r.structured)} for ${JSON.stringify(text)}`;
  if (!("parsed" in r)) return `no value for ${JSON.stringify(text)}`;
  const valid = ajv.compile(schema);
  if (!valid(r.parsed)) return `ajv refuses ${JSON.stringify(r.parsed)}`;
  const whole = runChunks(text, request, []);
  // one character at a time, and cut at random places
  let seed = text.length;
  const random = every(text).filter(() => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 7 === 0);
  for (const cuts of [every(text), random])
    if (JSON.stringify(runChunks(text, request, cuts)) !== JSON.stringify(whole))
      return `a split reads otherwise: ${JSON.stringify(text)}`;
  return undefined;
}

const rf = (schema: Record<string, unknown>): ResponseFormat => ({ type: "json_schema", schema, name: "out" });

describe("response format walks", () => {
  it.each(SCHEMAS)("%s: every walk (hermes) is content ajv takes, read the same whole and split", (_name, schema) => {
    const o = { dialect: "hermes", responseFormat: rf(schema) };
    let refusal: ReturnType<typeof refused> | undefined;
    try {
      compileGrammar(buildToolGrammar(o), qwen3());
    } catch {
      refusal = refused(() => compileGrammar(buildToolGrammar(o), qwen3()));
    }
    if (refusal) {
      // a keyword the lowering refuses (the refusal tests below): refused at the response format
      expect([refusal.status, refusal.path?.startsWith("responseFormat.schema")]).toEqual([400, true]);
      return;
    }
    const { texts, stuck } = walks(o, 12);
    expect(stuck).toBe(0);
    expect(texts.length).toBeGreaterThan(0);
    expect(texts.map((t) => contentProblem(t, o, schema)).filter(Boolean)).toEqual([]);
  });

  it.each(["qwen3-coder", "gpt-oss", "generic", "llama3", "mistral", "kimi-k2", "deepseek-v3.1"])(
    "%s, no tools: the content is the format's JSON",
    (dialect) => {
      const o = { dialect, responseFormat: rf(PERSON) };
      const { texts } = walks(o, 10);
      expect(texts.length).toBeGreaterThan(0);
      expect(texts.map((t) => contentProblem(t, o, PERSON)).filter(Boolean)).toEqual([]);
    },
  );

  it("a thought first, then the JSON (hermes, qwen3-coder, gpt-oss)", () => {
    for (const dialect of ["hermes", "qwen3-coder", "gpt-oss"]) {
      const o = { dialect, reasoning: true, responseFormat: rf(PERSON) };
      const { texts } = walks(o, 24);
      expect(texts.map((t) => contentProblem(t, o, PERSON)).filter(Boolean)).toEqual([]);
      const thought =
        dialect === "gpt-oss"
          ? "<|channel|>analysis<|message|>I think<|end|><|start|>assistant"
          : "<think>I think</think>";
      const answer = dialect === "gpt-oss" ? "<|channel|>final<|message|>" : "\n";
      const text = `${thought}${answer}{"name": "Al", "age": 3}`;
      expect(grammarAccepts(buildToolGrammar(o), text), dialect).toBe(true);
      const r = parseToolCalls(text, o);
      expect([r.reasoning?.includes("I think"), r.structured, r.parsed]).toEqual([
        true,
        { status: "valid" },
        { name: "Al", age: 3 },
      ]);
    }
  });

  it("json_object: any JSON object, and nothing else", () => {
    const o = { dialect: "hermes", responseFormat: { type: "json_object" } as const };
    const { texts } = walks(o, 12);
    expect(texts.map((t) => contentProblem(t, o, { type: "object" })).filter(Boolean)).toEqual([]);
    const g = buildToolGrammar(o);
    expect(grammarAccepts(g, '{"a": [1, {"b": null}]}')).toBe(true);
    expect([grammarAccepts(g, "[1]"), grammarAccepts(g, '"x"'), grammarAccepts(g, "hello")]).toEqual([
      false,
      false,
      false,
    ]);
  });

  it('beside tools under toolChoice "auto" (hermes, qwen3-coder, gpt-oss): calls, or the JSON content', () => {
    const tools = [fn("get_weather", { city: { type: "string" } })];
    for (const dialect of ["hermes", "qwen3-coder", "gpt-oss"]) {
      const o = { dialect, tools, toolChoice: "auto" as const, responseFormat: rf(PERSON) };
      const { texts } = walks(o, 30);
      let calls = 0;
      let content = 0;
      for (const t of texts) {
        const r = parseToolCalls(t, o);
        if (r.toolCalls.length > 0) {
          calls++;
          expect([r.incomplete, r.structured, "parsed" in r], t).toEqual([[], { status: "calls" }, false]);
        } else {
          content++;
          expect(contentProblem(t, o, PERSON), dialect).toBeUndefined();
        }
      }
      expect([dialect, content > 0]).toEqual([dialect, true]);
      // a call as the dialect writes it: accepted, and read as the answer's call
      const call = writeOutput(getDialect(dialect), [
        writeCall(getDialect(dialect), "get_weather", [["city", '"Paris"', "Paris"]]),
      ]);
      expect(grammarAccepts(buildToolGrammar(o), call), call).toBe(true);
      const r = parseToolCalls(call, o);
      expect([r.toolCalls.length, r.structured, calls >= 0]).toEqual([1, { status: "calls" }, true]);
      expect(grammarAccepts(buildToolGrammar(o), "Sure, here it is.")).toBe(false);
    }
  });
});

describe("the token budget", () => {
  it("after a thought: </think> is held back where the JSON after it cannot close in the tokens left", () => {
    const v = qwen3();
    const o = { dialect: "hermes", reasoning: true, responseFormat: rf(PERSON) };
    const m = compileGrammar(buildToolGrammar(o), v).createMatcher();
    const mask = m.allocateBitmask();
    const allowed = (id: number) => (mask[id >>> 5]! & (1 << (id & 31))) !== 0;
    const close = v.idOfPiece("</think>")!;
    const word = v.idOfPiece("hello")!;
    expect(m.acceptString("<think>hmm")).toBe(true);
    expect(m.acceptToken(close)).toBe(true);
    const needed = m.minTokensToFinish() + 1; // </think> itself, then the shortest JSON
    m.rollback(1);
    // the least tokens left at which </think> is allowed: the shortest JSON fits after it
    const at = (left: number) => {
      m.fillNextTokenBitmask(mask, { tokensLeft: left });
      return [allowed(close), allowed(word)];
    };
    const least = [...Array(64).keys()].map((i) => i + 1).find((left) => at(left)[0]);
    // never below what the JSON needs (measured: 9 tokens left for a shortest answer of 6, so the
    // thought is held open 3 tokens earlier than the shortest answer needs)
    expect(least).toBeGreaterThanOrEqual(needed);
    expect(at(least! - 1)).toEqual([false, true]); // the thought goes on instead
    expect(at(least!)).toEqual([true, true]);
  });
});

const OK = {
  type: "object",
  properties: { ok: { type: "boolean" } },
  required: ["ok"],
  additionalProperties: false,
};

describe("the token budget before the JSON opens", () => {
  it("leading whitespace is left out where the JSON could no longer close after it; allowed with room", () => {
    const v = qwen3();
    for (const reasoning of [false, true]) {
      // a small object, whose shortest answer the budget's search finds exactly
      const o = { dialect: "hermes", reasoning, responseFormat: rf(OK) };
      const m = compileGrammar(buildToolGrammar(o), v).createMatcher();
      if (reasoning) expect(m.acceptString("<think>hmm</think>")).toBe(true);
      const mask = m.allocateBitmask();
      const allowed = (id: number) => (mask[id >>> 5]! & (1 << (id & 31))) !== 0;
      const newline = v.idOfPiece("\u010a")!; // "\n"
      const shortest = m.minTokensToFinish();
      m.fillNextTokenBitmask(mask, { tokensLeft: 64 });
      expect([reasoning, allowed(newline)]).toEqual([reasoning, true]);
      // with exactly the shortest answer's tokens left and its end token, the JSON opens now (the
      // tokens of a shortest answer)
      m.fillNextTokenBitmask(mask, { tokensLeft: shortest + 1 });
      expect([reasoning, allowed(newline), m.hasAllowedToken()]).toEqual([reasoning, false, true]);
      // whitespace taken while the budget allows it: the JSON then opens with room to close
      for (const left of [shortest + 1, shortest + 3, shortest + 6]) {
        const w = compileGrammar(buildToolGrammar(o), v).createMatcher();
        if (reasoning) w.acceptString("<think>hmm</think>");
        let n = left;
        for (; ; n--) {
          w.fillNextTokenBitmask(mask, { tokensLeft: n });
          if (!allowed(newline)) break;
          expect(w.acceptToken(newline)).toBe(true);
        }
        if (left === shortest + 6) expect(n).toBeLessThan(left); // room for whitespace: taken
        const first = [...Array(v.size).keys()].find(allowed)!;
        expect(w.acceptToken(first)).toBe(true);
        // room for the rest of the JSON and the end token
        expect([reasoning, left, w.minTokensToFinish() + 1 <= n - 1]).toEqual([reasoning, left, true]);
      }
    }
  });
});

describe("the token budget beside tools", () => {
  it('under "auto" no call is opened where it cannot close; the JSON may still start', () => {
    const v = qwen3();
    const tools = [fn("get_weather", { city: { type: "string" } })];
    const o = { dialect: "hermes", tools, toolChoice: "auto" as const, responseFormat: rf(PERSON) };
    const m = compileGrammar(buildToolGrammar(o), v).createMatcher();
    const mask = m.allocateBitmask();
    const allowed = (id: number) => (mask[id >>> 5]! & (1 << (id & 31))) !== 0;
    const trigger = v.idOfPiece("<tool_call>")!;
    const brace = v.idOfPiece("{")!;
    m.fillNextTokenBitmask(mask, { tokensLeft: 64 });
    expect([allowed(trigger), allowed(brace)]).toEqual([true, true]);
    m.fillNextTokenBitmask(mask, { tokensLeft: 3 });
    expect([allowed(trigger), allowed(brace)]).toEqual([false, true]);
  });
});

describe("a model whose template names no dialect", () => {
  it("the generic dialect for the content, the prompt as the template writes it", () => {
    const qwen = loadModelSource(dirname(QWEN3_TOKENIZER), () => {});
    const plain = "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}assistant:";
    const model = { ...qwen, path: qwen.path, vocabulary: qwen.vocabulary, chatTemplate: plain, dialect: undefined };
    const messages = [
      { role: "user" as const, content: "hi" },
      { role: "tool" as const, content: "42", tool_call_id: "a" },
    ];
    const structured = prepareChat(model, { messages, responseFormat: { type: "json_object" } });
    expect(structured.resolved?.spec.name).toBe("generic");
    expect(structured.prompt).toBe(prepareChat(model, { messages }).prompt);
    expect(grammarAccepts(structured.ir!, '{"a": 1}')).toBe(true);
    expect(grammarAccepts(structured.ir!, "hello")).toBe(false);
    expect(prepareChat(model, { messages }).resolved).toBeUndefined();
  });
});

describe("response format verdicts", () => {
  const o = { dialect: "hermes", responseFormat: rf(PERSON) };

  it('a cut answer is "cut" with no value, even when its text is a complete object', () => {
    for (const text of ['{"name": "Al", "ag', '{"name": "Al", "age": 3}']) {
      const r = parseToolCalls(text, { ...o, finishReason: "length" });
      expect([r.finishReason, r.structured?.status, "parsed" in r]).toEqual(["length", "cut", false]);
    }
  });

  it('content that does not fit (unmasked, or cut by a stop string) is "invalid" with no value, for every split', () => {
    for (const text of [
      '{"name": "Al"}',
      '{"name": "Al", "age": -1}',
      "Sure!",
      "",
      '{"name": "Al", "age": 3} and more',
    ]) {
      const r = parseToolCalls(text, o);
      expect([r.structured?.status, "parsed" in r], text).toEqual(["invalid", false]);
      expect(runChunks(text, o, every(text))).toEqual(runChunks(text, o, []));
    }
  });

  it("a number no double holds as written fits the schema, but is given as no value", () => {
    const o = { dialect: "hermes", responseFormat: rf({ type: "object" }) };
    const r = parseToolCalls('{"n": 9007199254740993}', o);
    expect(r.structured?.status).toBe("valid");
    expect(r.structured?.reason).toContain("no plain value holds it");
    expect("parsed" in r).toBe(false);
    // past a double's range, or a key given twice: invalid, as a call's arguments would be
    for (const [text, why] of [
      ['{"n": 1e999}', "beyond the range of a double"],
      ['{"a": 1, "a": 2}', "given twice"],
    ]) {
      const bad = parseToolCalls(text!, o);
      expect([
        bad.structured?.status,
        bad.structured?.reason?.includes(why!) || grammarAccepts(buildToolGrammar(o), text!) === false,
        "parsed" in bad,
      ]).toEqual(["invalid", true, false]);
    }
  });

  it('{"type": "text"} and no response format: any text, no verdict', () => {
    for (const responseFormat of [{ type: "text" } as const, undefined]) {
      const r = parseToolCalls("Sure!", { dialect: "hermes", ...(responseFormat ? { responseFormat } : {}) });
      expect([r.content, r.structured, "parsed" in r]).toEqual(["Sure!", undefined, false]);
    }
  });
});

describe("response format refusals", () => {
  it.each(Object.keys(UNSUPPORTED_HINTS))(
    '"%s": the tool refusal\'s error, keyword and message, the path rooted at the response format',
    (kw) => {
      const schema = { type: "object", properties: { v: { type: "string", [kw]: {} } }, required: ["v"] };
      const asTool = refused(() =>
        compileGrammar(
          buildToolGrammar({
            dialect: "hermes",
            tools: paramTools({ type: "string", [kw]: {} }),
            toolChoice: "required",
          }),
          qwen3(),
        ),
      );
      for (const dialect of ["hermes", "qwen3-coder", "gpt-oss"]) {
        const asFormat = refused(() =>
          compileGrammar(buildToolGrammar({ dialect, responseFormat: rf(schema) }), qwen3()),
        );
        // the same but for the route's code: invalid_tool_schema / invalid_response_format
        const rooted = ({ code: _code, ...r }: ReturnType<typeof refused>, root: string) => ({
          ...r,
          path: r.path?.replace(root, "<root>"),
          message: r.message.replaceAll(root, "<root>"),
        });
        expect(rooted(asFormat, "responseFormat.schema")).toEqual(rooted(asTool, "tools[0].function.parameters"));
        expect(asFormat.path).toBe(`responseFormat.schema.properties.v.${kw}`);
        expect([asFormat.status, asFormat.code]).toEqual([400, "invalid_response_format"]);
        // the parser refuses it when made, as it refuses such a tool: not once an answer ends
        expect(refused(() => parseToolCalls("", { dialect, responseFormat: rf(schema) }))).toEqual(asFormat);
      }
    },
  );

  it("a response format of the wrong shape is a ResponseFormatError naming the field", () => {
    const bad: Array<[unknown, string]> = [
      ["json", "responseFormat must be"],
      [{ type: "xml" }, "responseFormat.type must be"],
      [{ type: "json_schema" }, "responseFormat.schema must be a JSON schema object"],
      [{ type: "json_schema", schema: [] }, "responseFormat.schema must be a JSON schema object"],
      [{ type: "json_schema", schema: {}, name: 3 }, "responseFormat.name must be a string"],
      [{ type: "json_schema", schema: {}, strict: "yes" }, "responseFormat.strict must be true or false"],
    ];
    for (const [responseFormat, message] of bad) {
      const e = refused(() => resolveRequest({ dialect: "hermes", responseFormat: responseFormat as ResponseFormat }));
      expect([e.error, e.message.startsWith(message)], e.message).toEqual(["ResponseFormatError", true]);
    }
    expect(() => resolveRequest({ dialect: "hermes", responseFormat: "json" as never })).toThrow(ResponseFormatError);
  });

  it('beside tools under "auto" where calls open the answer as JSON: refused, saying what to use', () => {
    const tools = [fn("f", {})];
    for (const dialect of ["llama3", "qwen2.5-coder", "generic"]) {
      const e = refused(() => resolveRequest({ dialect, tools, responseFormat: { type: "json_object" } }));
      expect(e.message).toContain('use toolChoice "none" (JSON content only) or "required" (calls only)');
      for (const toolChoice of ["none", "required"] as const)
        expect(() =>
          buildToolGrammar({ dialect, tools, toolChoice, responseFormat: { type: "json_object" } }),
        ).not.toThrow();
    }
  });
});

/** What `f` throws, as keyword-matrix's refusalOf shapes it (the route's status and code included). */
function refused(f: () => unknown): ReturnType<typeof refusalOf> & { message: string; path?: string; status?: number } {
  try {
    f();
  } catch (e) {
    return refusalOf(e, toApiError);
  }
  throw new Error("not refused");
}
