// A gateway whose upstream takes the grammar as text (llama-server's GBNF): a string that must
// match several constraints at once (the grammar's intersection, which GBNF cannot write) is sent
// written out where that is small, and refused with a 400 naming the schema where it is not (a
// host name's 253 characters with its labels' 63), never sent looser. The refusal happens before
// any request goes upstream; every export error is that 400.
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { useScriptedGateway } from "../support/scripted-gateway.js";
import { client } from "../support/server-fixtures.js";
import { QWEN3_TOKENIZER } from "../support/vocabs.js";
import { NO_TOKENS } from "../support/timeouts.js";

const tool = (name: string, value: Record<string, unknown>) => ({
  type: "function" as const,
  function: {
    name,
    parameters: { type: "object", properties: { v: value }, required: ["v"] },
  },
});

const fixture = useScriptedGateway((origin) => ({
  port: 0,
  upstreams: { urls: [origin], engine: "llama-server", tokenizer: dirname(QWEN3_TOKENIZER) },
}));

async function ask(value: Record<string, unknown>) {
  const before = fixture.upstream.requests.length;
  // a call of f that fits every schema asked with here (tool_choice "required": an answer with no
  // call would be a 502)
  const call = '<tool_call>\n{"name": "f", "arguments": {"v": "aaa"}}\n</tool_call>';
  fixture.upstream.reply({ body: { content: call, stop: true, stop_type: "eos" } });
  try {
    await client(fixture.gateway.url, NO_TOKENS).chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      tools: [tool("f", value)],
      tool_choice: "required",
      max_tokens: 64,
    });
    return { status: 200, sent: fixture.upstream.requests.slice(before) };
  } catch (e) {
    // the reply queued stays for the next request (each is the same answer)
    return {
      status: (e as { status: number }).status,
      code: (e as { code?: string }).code,
      message: (e as Error).message,
      sent: fixture.upstream.requests.slice(before),
    };
  }
}

describe("an intersection in the GBNF a gateway sends", () => {
  it("is written out where it is small: a pattern beside a minLength", async () => {
    const r = await ask({ type: "string", pattern: "a", minLength: 3 });
    expect(r.status).toBe(200);
    expect(r.sent).toHaveLength(1);
    expect(typeof r.sent[0]!.body.grammar).toBe("string");
  });

  it("is refused with a 400 naming the schema where it is not: format hostname", async () => {
    const r = await ask({ type: "string", format: "hostname" });
    expect(r).toMatchObject({ status: 400, code: "grammar_not_exportable", sent: [] });
    expect(r.message).toMatch(/"format": "hostname".*not exportable/);
  });

  it("any export error is that 400: a repetition past GBNF's 2,000 (was a 500)", async () => {
    const r = await ask({ type: "string", pattern: "^a{0,3000}$" });
    expect(r).toMatchObject({ status: 400, code: "grammar_not_exportable", sent: [] });
    expect(r.message).toMatch(/repeat bound above 2000 is not exportable to GBNF/);
  });

  it("is refused naming the JSON pointer: two patterns whose product is large", async () => {
    const r = await ask({ type: "string", allOf: [{ pattern: "^[a-z]{0,40}x" }, { pattern: "y[a-z]{0,40}$" }] });
    expect(r).toMatchObject({ status: 400, code: "grammar_not_exportable", sent: [] });
    expect(r.message).toMatch(/tools\[0\]\.function\.parameters\.properties\.v: the strings here must match/);
  });
});
