// The gateway in front of an upstream that does not apply tool_choice (verify-only, `--engine
// openai`): under "required" or a named tool the client asked for a call, so an answer of text
// alone is not passed on as an ordinary answer (it used to be a 200, finish "stop", no call, no
// entry in toolmask.incomplete). Whole: 502 upstream_error saying why; streamed: the stream ends
// with that error and no chunk carried the text. An answer cut at the token limit stays "length",
// and a call the choice does not allow stays an invalid entry (its verdict given), as before.
import { describe, expect, it } from "vitest";
import { client } from "../support/server-fixtures.js";
import { useScriptedGateway } from "../support/scripted-gateway.js";
import { NO_TOKENS } from "../support/timeouts.js";

const fn = (name: string) => ({
  type: "function" as const,
  function: { name, parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
});
const TOOLS = [fn("get_weather"), fn("get_time")];
const NAMED = { type: "function" as const, function: { name: "get_weather" } };

const fixture = useScriptedGateway();

type Choice = "auto" | "required" | typeof NAMED;
const request = (toolChoice: Choice) => ({
  model: "m",
  messages: [{ role: "user" as const, content: "Weather in Paris?" }],
  tools: TOOLS,
  tool_choice: toolChoice,
});

async function whole(toolChoice: Choice, message: Record<string, unknown>, finish = "stop") {
  fixture.upstream.reply({
    body: { choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }] },
  });
  try {
    const r = await client(fixture.gateway.url, NO_TOKENS).chat.completions.create(request(toolChoice));
    const c = r.choices[0]!;
    const incomplete = (r as unknown as { toolmask: { incomplete: Array<{ reason: string }> } }).toolmask.incomplete;
    return {
      status: 200,
      finish: c.finish_reason,
      content: c.message.content,
      incomplete: incomplete.map((i) => i.reason),
    };
  } catch (err) {
    return {
      status: (err as { status: number }).status,
      code: (err as { code?: string }).code,
      message: (err as Error).message,
    };
  }
}

async function streamed(toolChoice: Choice, content: string, finish = "stop") {
  const events = [
    { choices: [{ index: 0, delta: { role: "assistant" }, finish_reason: null }] },
    ...(content.match(/[\s\S]{1,4}/g) ?? []).map((c) => ({
      choices: [{ index: 0, delta: { content: c }, finish_reason: null }],
    })),
    { choices: [{ index: 0, delta: {}, finish_reason: finish }] },
  ];
  fixture.upstream.reply({
    write: (res) =>
      void res
        .writeHead(200, { "content-type": "text/event-stream" })
        .end(`${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("")}data: [DONE]\n\n`),
  });
  let text = "";
  try {
    const s = await client(fixture.gateway.url, NO_TOKENS).chat.completions.create({
      ...request(toolChoice),
      stream: true,
    });
    for await (const c of s) text += c.choices[0]?.delta.content ?? "";
  } catch (err) {
    return { content: text, error: (err as Error).message };
  }
  return { content: text };
}

describe("tool_choice asks for a call; the upstream answered text alone", () => {
  it.each([
    ["required", "required" as Choice, /tool_choice "required" asks for a call/],
    ["a named tool", NAMED, /tool_choice names "get_weather"/],
  ])("%s: 502 saying why, whole and streamed, the text not passed on", async (_, choice, why) => {
    const w = await whole(choice, { content: "It is sunny." });
    expect([w.status, w.code], JSON.stringify(w)).toEqual([502, "upstream_error"]);
    expect(w.message).toMatch(why);
    expect(w.message).toMatch(/answered with no call/);
    const s = await streamed(choice, "It is sunny.");
    expect(s.error, "the stream ends with the error").toMatch(why);
    expect(s.content, "no chunk carried the text").toBe("");
  });

  it("under auto the same text is the answer", async () => {
    expect(await whole("auto", { content: "It is sunny." })).toMatchObject({
      status: 200,
      finish: "stop",
      content: "It is sunny.",
      incomplete: [],
    });
    expect(await streamed("auto", "It is sunny.")).toEqual({ content: "It is sunny." });
  });

  it("cut at the token limit: finish length, as any cut answer", async () => {
    expect(await whole("required", { content: "It is" }, "length")).toMatchObject({ status: 200, finish: "length" });
  });

  it("a call the choice does not allow: an invalid entry saying so, not a 502", async () => {
    const w = await whole(
      NAMED,
      {
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "get_time", arguments: '{"city":"Paris"}' } }],
      },
      "tool_calls",
    );
    expect(w).toMatchObject({ status: 200, incomplete: ['"get_time" is not allowed by tool_choice'] });
  });
});
