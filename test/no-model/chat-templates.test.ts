// What each model family's own chat template writes for an assistant turn with tool calls: the
// exact wire text (whitespace included) our dialect parsers must read. Templates come from the
// llama.cpp source node-llama-cpp bundles; rendering is src/templates/render.ts. Nothing is written
// to disk. Where a template surprises (drops content, drops calls, re-encodes…) an assertion says so.
import { execFileSync } from "node:child_process";
import { Template } from "@huggingface/jinja";
import { describe, expect, it } from "vitest";
import { callsText } from "../../src/dialects/prompt.js";
import { getDialect } from "../../src/index.js";
import { renderChat, rewriteIntKeyedDicts, type ChatMessage } from "../../src/templates/render.js";
import {
  DIALECT_TEMPLATES,
  TEMPLATE_DIALECTS,
  SYSTEM,
  USER,
  assistantMessage,
  callId,
  loadTemplate,
  renderAssistantToolCalls,
  renderDialect,
  toolsFor,
  type Call,
  type DialectTemplate,
  type TemplateDialect,
} from "../support/template-fixtures.js";

// Strings with newlines, quotes, `<`, `&`, a trailing newline, an empty string and non-ASCII;
// integers, floats, booleans, null, nested objects and arrays.
const WRITE: Call = {
  name: "write_file",
  arguments: { path: "/tmp/a <b>.txt", content: 'line 1\nsaid "hi" & <tag>\n', overwrite: true, mode: 420 },
};
const SEARCH: Call = {
  name: "search",
  arguments: {
    query: "x < y ☃",
    filters: { lang: "ts", nested: { deep: [1, 2.5, null, false] } },
    tags: ["a", 'b"c'],
    limit: 3.5,
    cursor: "",
  },
};
const CONTENT = "Let me check.";
const REASONING = "Think <hard>.";

// Python's json.dumps (", " and ": " separators, ensure_ascii=False), as the templates' tojson.
function pyJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(pyJson).join(", ")}]`;
  if (v !== null && typeof v === "object")
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${pyJson(x)}`)
      .join(", ")}}`;
  return JSON.stringify(v);
}
// Python's str(): True/False/None, and dicts/lists as reprs ({'a': 1}).
function pyStr(v: unknown): string {
  return typeof v === "string" ? v : pyRepr(v);
}
function pyRepr(v: unknown): string {
  if (v === null) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "string") {
    const q = v.includes("'") && !v.includes('"') ? '"' : "'";
    return q + v.replace(/\\/g, "\\\\").replace(new RegExp(q, "g"), `\\${q}`).replace(/\n/g, "\\n") + q;
  }
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  if (typeof v === "object")
    return `{${Object.entries(v)
      .map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`)
      .join(", ")}}`;
  return String(v);
}
const args = (c: Call) => Object.entries(c.arguments);
const isContainer = (v: unknown) => v !== null && typeof v === "object";

/** How one template writes calls: the expected `assistant` text (content "" = none). */
interface Expect {
  wire: (calls: readonly Call[], content: string) => string;
  /** The turn with reasoning REASONING, given the wire text without it. */
  reasoned: (wire: string) => string;
  /** Calls the template writes for one message (Llama 3.x throws above 1, gpt-oss drops the rest). */
  maxCalls?: number;
  throwsAboveMax?: RegExp;
}

// Qwen3-Coder XML: V raw, containers as JSON, other scalars as Python str() (True, not true).
const qwenXml = (calls: readonly Call[], content: string) =>
  (content ? `${content}\n\n` : "") +
  calls
    .map(
      (c) =>
        `<tool_call>\n<function=${c.name}>\n${args(c)
          .map(([k, v]) => `<parameter=${k}>\n${isContainer(v) ? pyJson(v) : pyStr(v)}\n</parameter>\n`)
          .join("")}</function>\n</tool_call>`,
    )
    .join("\n");
const hermes = (calls: readonly Call[], content: string) =>
  (content ? `${content}\n` : "") +
  calls.map((c) => `<tool_call>\n{"name": "${c.name}", "arguments": ${pyJson(c.arguments)}}\n</tool_call>`).join("\n");
const glmValue = (v: unknown) => (typeof v === "string" ? v : pyJson(v));
const kimi = (calls: readonly Call[], content: string) =>
  `${content}<|tool_calls_section_begin|>${calls.map((c, i) => `<|tool_call_begin|>functions.${c.name}:${i}<|tool_call_argument_begin|>${pyJson(c.arguments)}<|tool_call_end|>`).join("")}<|tool_calls_section_end|>`;
const mistral = (calls: readonly Call[], content: string) =>
  content + calls.map((c) => `[TOOL_CALLS]${c.name}[ARGS]${pyJson(c.arguments)}`).join("");
const same = (wire: string) => wire; // the template does not write the reasoning

const EXPECT: Record<string, Expect> = {
  "Qwen3-Coder.jinja": { wire: qwenXml, reasoned: same },
  "Qwen3.5-4B.jinja": { wire: qwenXml, reasoned: (w) => `${REASONING}\n</think>\n\n${w}` }, // prompt ends "<think>\n"
  "Qwen-Qwen2.5-7B-Instruct.jinja": { wire: hermes, reasoned: same },
  "Qwen-Qwen3-0.6B.jinja": { wire: hermes, reasoned: (w) => `<think>\n${REASONING}\n</think>\n\n${w}` },
  // Seed-OSS: every non-string through Python str(): True, and a dict as {'lang': 'ts', …}, not JSON.
  "ByteDance-Seed-OSS.jinja": {
    wire: (calls, content) =>
      (content ? `${content}\n\n` : "") +
      calls
        .map(
          (c) =>
            `<seed:tool_call>\n<function=${c.name}>\n${args(c)
              .map(([k, v]) => `<parameter=${k}>${pyStr(v)}</parameter>\n`)
              .join("")}</function>\n</seed:tool_call>`,
        )
        .join("\n"),
    reasoned: (w) => `<seed:think>${REASONING}</seed:think>\n${w}`,
  },
  // GLM-4.6: the turn starts with "\n" after the prompt's "<think></think>"; values via tojson (true).
  "GLM-4.6.jinja": {
    wire: (calls, content) =>
      `\n${content ? `${content}\n` : ""}` +
      calls
        .map(
          (c) =>
            `<tool_call>${c.name}\n${args(c)
              .map(([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${glmValue(v)}</arg_value>\n`)
              .join("")}</tool_call>`,
        )
        .join("\n"),
    reasoned: (w) => `\n<think>${REASONING}</think>${w}`,
  },
  // GLM-4.7 writes the same tags with no newlines at all.
  "GLM-4.7-Flash.jinja": {
    wire: (calls, content) =>
      content +
      calls
        .map(
          (c) =>
            `<tool_call>${c.name}${args(c)
              .map(([k, v]) => `<arg_key>${k}</arg_key><arg_value>${glmValue(v)}</arg_value>`)
              .join("")}</tool_call>`,
        )
        .join(""),
    reasoned: (w) => `${REASONING}</think>${w}`, // prompt ends "<think>"
  },
  "moonshotai-Kimi-K2.jinja": { wire: kimi, reasoned: same },
  "Kimi-K2-Instruct.jinja": { wire: kimi, reasoned: same },
  "Kimi-K2-Thinking.jinja": {
    wire: (calls, content) => `<think></think>${kimi(calls, content)}`,
    reasoned: (w) => w.replace("<think></think>", `<think>${REASONING}</think>`),
  },
  "deepseek-ai-DeepSeek-V3.1.jinja": {
    wire: (calls, content) =>
      `${content}<｜tool▁calls▁begin｜>${calls.map((c) => `<｜tool▁call▁begin｜>${c.name}<｜tool▁sep｜>${pyJson(c.arguments)}<｜tool▁call▁end｜>`).join("")}<｜tool▁calls▁end｜>`,
    // With thinking on the prompt ends "<think>" and the template drops the reasoning: "</think>" only.
    reasoned: (w) => `</think>${w}`,
  },
  // gpt-oss: "commentary json" (no <|constrain|>); content beside a call becomes an analysis message.
  "openai-gpt-oss-120b.jinja": {
    wire: (calls, content) =>
      (content ? `<|channel|>analysis<|message|>${content}<|end|><|start|>assistant` : "") +
      ` to=functions.${calls[0]!.name}<|channel|>commentary json<|message|>${pyJson(calls[0]!.arguments)}`,
    reasoned: (w) => `<|channel|>analysis<|message|>${REASONING}<|end|><|start|>assistant${w}`,
    maxCalls: 1, // "We assume max 1 tool call per message": later calls vanish without an error
  },
  "mistralai-Ministral-3-14B-Reasoning-2512.jinja": {
    wire: mistral,
    reasoned: (w) => `[THINK]${REASONING}[/THINK]${w}`,
  },
  "unsloth-mistral-Devstral-Small-2507.jinja": { wire: mistral, reasoned: same },
  // Small 3.2 writes an id between name and arguments, and drops the content beside calls.
  "Mistral-Small-3.2-24B-Instruct-2506.jinja": {
    wire: (calls) =>
      calls.map((c, i) => `[TOOL_CALLS]${c.name}[CALL_ID]${callId(i)}[ARGS]${pyJson(c.arguments)}`).join(""),
    reasoned: same,
  },
  // Nemo: one JSON array with the ids inside; the content beside calls is dropped.
  "mistralai-Mistral-Nemo-Instruct-2407.jinja": {
    wire: (calls) =>
      `[TOOL_CALLS][${calls.map((c, i) => `{"name": "${c.name}", "arguments": ${pyJson(c.arguments)}, "id": "${callId(i)}"}`).join(", ")}]`,
    reasoned: same,
  },
  // MiniMax-M2's prompt opens "<think>\n", so a turn always carries reasoning (see below).
  "MiniMax-M2.jinja": {
    wire: (calls, content) =>
      `${REASONING}\n</think>\n\n${content}\n<minimax:tool_call>\n` +
      calls
        .map(
          (c) =>
            `<invoke name="${c.name}">\n${args(c)
              .map(([k, v]) => `<parameter name="${k}">${glmValue(v)}</parameter>\n`)
              .join("")}</invoke>\n`,
        )
        .join("") +
      "</minimax:tool_call>",
    reasoned: same,
  },
};
// Llama 3.x: "parameters", not "arguments"; one call per message; content beside the call dropped.
for (const f of [
  "meta-llama-Llama-3.1-8B-Instruct.jinja",
  "meta-llama-Llama-3.2-3B-Instruct.jinja",
  "meta-llama-Llama-3.3-70B-Instruct.jinja",
]) {
  EXPECT[f] = {
    wire: (calls) => `{"name": "${calls[0]!.name}", "parameters": ${pyJson(calls[0]!.arguments)}}`,
    reasoned: same,
    maxCalls: 1,
    throwsAboveMax: /This model only supports single tool-calls at once!/,
  };
}

// The lfm2 and generic templates go through the dialect's prompt rewriting (their templates do not
// write the calls, but LFM2.5-8B-A1B's): their round trips are in dialect-templates.test.ts.
const cases = TEMPLATE_DIALECTS.filter((d) => !DIALECT_TEMPLATES[d].some((t) => t.viaPrompt)).flatMap((d) =>
  DIALECT_TEMPLATES[d].map((t) => [d, t.file, t] as [TemplateDialect, string, DialectTemplate]),
);
const needsReasoning = (file: string) => file === "MiniMax-M2.jinja";
const turn = (
  d: TemplateDialect,
  file: string,
  calls: Call[],
  opts: { content?: string | null; reasoning?: string; argumentsAsJson?: boolean } = {},
) =>
  renderAssistantToolCalls(d, calls, {
    template: file,
    ...(needsReasoning(file) && opts.reasoning === undefined ? { reasoning: REASONING } : {}),
    ...opts,
  });

describe.each(cases)("%s: %s", (dialect, file, t) => {
  const exp = EXPECT[file]!;

  it("writes one call in the family's wire format, exactly", () => {
    const r = turn(dialect, file, [WRITE]);
    expect(r.assistant).toBe(exp.wire([WRITE], ""));
    expect(r.end).toBe(t.end);
    expect(r.raw).toBe(r.assistant + r.end);
    expect(r.full.endsWith(r.raw)).toBe(true);
    expect(r.assistant).toContain(WRITE.name);
  });

  it("writes two calls (or records that it cannot)", () => {
    if (exp.throwsAboveMax) {
      expect(() => turn(dialect, file, [WRITE, SEARCH])).toThrow(exp.throwsAboveMax);
      return;
    }
    const r = turn(dialect, file, [WRITE, SEARCH]);
    expect(r.assistant).toBe(exp.wire([WRITE, SEARCH], ""));
    if (exp.maxCalls === 1)
      expect(r.raw).not.toContain(SEARCH.name); // silently dropped
    else expect(r.assistant.indexOf(SEARCH.name)).toBeGreaterThan(r.assistant.indexOf(WRITE.name));
  });

  it("writes content beside a call where the template keeps it", () => {
    const r = turn(dialect, file, [WRITE], { content: CONTENT });
    expect(r.assistant).toBe(exp.wire([WRITE], CONTENT));
    const dropsContent = !exp.wire([WRITE], CONTENT).includes(CONTENT);
    expect(r.full.includes(CONTENT)).toBe(!dropsContent);
  });

  it("writes reasoning where the template keeps it", () => {
    const r = turn(dialect, file, [WRITE], { reasoning: REASONING });
    expect(r.assistant).toBe(exp.reasoned(exp.wire([WRITE], "")));
  });

  it("accepts OpenAI-shaped arguments (a JSON string) and renders them as objects", () => {
    const calls = exp.throwsAboveMax ? [SEARCH] : [WRITE, SEARCH];
    expect(turn(dialect, file, calls, { argumentsAsJson: true }).full).toBe(turn(dialect, file, calls).full);
  });

  it("renders a follow-up: tool results, a final answer and a new user turn", () => {
    const calls = exp.maxCalls === 1 ? [WRITE] : [WRITE, SEARCH];
    const messages: ChatMessage[] = [
      ...(t.noSystemMessage ? [] : [{ role: "system", content: SYSTEM }]),
      { role: "user", content: USER },
      assistantMessage(t, calls),
      ...calls.map((c, i) => ({ role: "tool", tool_call_id: callId(i), name: c.name, content: `result ${i} <ok>` })),
      { role: "assistant", content: "Done." },
      { role: "user", content: "Thanks" },
    ];
    const full = renderDialect(dialect, messages, {
      template: file,
      tools: toolsFor(calls),
      addGenerationPrompt: true,
    });
    for (const [i] of calls.entries()) expect(full).toContain(`result ${i} <ok>`);
    expect(full).toContain("Done.");
    // The calls read back in history as they were generated (MiniMax drops the old reasoning).
    const generated = turn(dialect, file, calls).assistant;
    expect(full).toContain(needsReasoning(file) ? generated.slice(generated.indexOf("</think>\n\n") + 10) : generated);
  });
});

describe("template quirks", () => {
  it("content: null beside calls — printed as None, thrown on, or fine, as in Python", () => {
    const outcome = (d: TemplateDialect, file: string) => {
      try {
        const r = turn(d, file, [WRITE], { content: null });
        return r.assistant.includes("None")
          ? "prints None"
          : r.full === turn(d, file, [WRITE]).full
            ? "as empty"
            : "differs";
      } catch {
        return "throws";
      }
    };
    const got = Object.fromEntries(cases.map(([d, f]) => [f, outcome(d, f)]));
    expect(got).toEqual({
      ...Object.fromEntries(cases.map(([, f]) => [f, "as empty"])),
      "GLM-4.6.jinja": "prints None", // "\nNone\n<tool_call>…": visible_text() prints None
      "GLM-4.7-Flash.jinja": "prints None",
      "MiniMax-M2.jinja": "prints None",
      "Qwen-Qwen3-0.6B.jinja": "throws", // '</think>' in None
      "mistralai-Ministral-3-14B-Reasoning-2512.jinja": "throws", // None | length
      "unsloth-mistral-Devstral-Small-2507.jinja": "throws", // None[0]
      // gpt-oss throws too ('…' in None) but render.ts passes "" for that family.
    });
  });

  it("gpt-oss: null content fails in the library; render.ts passes it as empty", () => {
    const src = loadTemplate("openai-gpt-oss-120b.jinja");
    const messages = [
      { role: "user", content: USER },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ type: "function", function: { name: "f", arguments: { a: 1 } } }],
      },
    ];
    expect(() => new Template(src).render({ messages })).toThrow();
    expect(renderChat(src, { messages })).toContain(
      '<|start|>assistant to=functions.f<|channel|>commentary json<|message|>{"a": 1}<|call|>',
    );
  });

  it("gpt-oss refuses content and reasoning beside the same call", () => {
    expect(() => renderAssistantToolCalls("gpt-oss", [WRITE], { content: CONTENT, reasoning: REASONING })).toThrow(
      /Cannot pass both content and thinking in an assistant message with tool calls/,
    );
  });

  it("JSON-string arguments are double-encoded by templates that apply tojson (hence the conversion)", () => {
    const src = loadTemplate("Qwen-Qwen2.5-7B-Instruct.jinja");
    const call = { type: "function", function: { name: "f", arguments: '{"a": 1}' } };
    const raw = new Template(src).render({
      messages: [
        { role: "user", content: "u" },
        { role: "assistant", content: "", tool_calls: [call] },
      ],
    });
    expect(raw).toContain('"arguments": "{\\"a\\": 1}"');
    const ours = renderChat(src, {
      messages: [
        { role: "user", content: "u" },
        { role: "assistant", content: "", tool_calls: [call] },
      ],
    });
    expect(ours).toContain('"arguments": {"a": 1}');
  });

  // Issue 30, defect 8: JSON.parse made 1e999 Infinity (rendered null), rounded long integers and
  // kept a repeated key's last value, so the prompt showed arguments the client never sent.
  it.each([
    ['{"n": 1e999}', /the number 1e999 at \$\.n is beyond the range of a double/],
    ['{"n": 12345678901234567891}', /the number 12345678901234567891 at \$\.n is not exactly a double/],
    ['{"s": "safe", "s": "rm -rf /"}', /the key "s" is given twice in the object at \$/],
  ])("history arguments %s are refused naming the field, not rendered changed", (args, why) => {
    const src = loadTemplate("Qwen-Qwen2.5-7B-Instruct.jinja");
    const messages = [
      { role: "user", content: "u" },
      { role: "assistant", content: "", tool_calls: [{ type: "function", function: { name: "f", arguments: "{}" } }] },
      { role: "tool", content: "r" },
      { role: "assistant", content: "", tool_calls: [{ type: "function", function: { name: "f", arguments: args } }] },
    ];
    const thrown = (() => {
      try {
        renderChat(src, { messages });
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect(thrown).toMatch(/messages\[3\]\.tool_calls\[0\]\.function\.arguments/);
    expect(thrown).toMatch(why);
    // The generic dialect writes past calls itself (src/dialects/prompt.ts): the same refusal.
    expect(() => callsText(getDialect("generic"), messages[3]!.tool_calls!, "messages[3].tool_calls")).toThrow(why);
  });

  it("Seed-OSS: the integer-keyed dict fails in the library; the rewrite is a list of pairs", () => {
    const src = loadTemplate("ByteDance-Seed-OSS.jinja");
    expect(() => new Template(src).render({ messages: [{ role: "user", content: "u" }] })).toThrow(
      /Object keys must be strings/,
    );
    const fixed = rewriteIntKeyedDicts(src);
    expect(fixed).toContain(
      "{%- set budget_reflections_v05 = [[0, 0], [512, 128], [1024, 256], [2048, 512], [4096, 512], [8192, 1024], [16384, 1024]] -%}",
    );
    expect(fixed).toContain("{%- for k, v in budget_reflections_v05 -%}");
    expect(fixed).toContain("{%- set ns.interval = 1024 -%}"); // was budget_reflections_v05[16384]
    const reflect = (b: number) =>
      /every (\d+) tokens/.exec(
        renderChat(src, { messages: [{ role: "user", content: "u" }], extra: { thinking_budget: b } }),
      )?.[1];
    expect([1, 512, 513, 5000, 99999].map(reflect)).toEqual(["128", "128", "256", "1024", "1024"]);
  });

  it("MiniMax-M2: the generation prompt opens the thought, so every turn carries one", () => {
    // The prompt ends "]~b]ai\n<think>\n"; the template writes a <think> block only for reasoning,
    // so the fixture gives every turn a thought and the parser reads it as "forced-open".
    const turn = renderAssistantToolCalls("minimax-m2", [WRITE]);
    expect(turn.prompt.endsWith("<think>\n")).toBe(true);
    expect(turn.assistant).toContain("</think>");
    expect(turn.parseReasoning).toBe("forced-open");
  });

  it("Kimi K2: call ids count across the conversation in Kimi-K2-Instruct, per message in moonshotai-Kimi-K2", () => {
    const twoTurns = (file: string) =>
      renderDialect(
        "kimi-k2",
        [
          { role: "user", content: USER },
          {
            role: "assistant",
            content: "",
            tool_calls: [{ id: callId(0), type: "function", function: { name: "f", arguments: { a: 1 } } }],
          },
          { role: "tool", tool_call_id: callId(0), name: "f", content: "r" },
          {
            role: "assistant",
            content: "",
            tool_calls: [{ id: callId(1), type: "function", function: { name: "f", arguments: { a: 2 } } }],
          },
        ],
        { template: file },
      );
    expect(twoTurns("Kimi-K2-Instruct.jinja")).toContain('functions.f:1<|tool_call_argument_begin|>{"a": 2}');
    expect(twoTurns("moonshotai-Kimi-K2.jinja")).toContain('functions.f:0<|tool_call_argument_begin|>{"a": 2}');
    // moonshotai-Kimi-K2 heads a tool result with the client's id and a literal backslash-n.
    expect(twoTurns("moonshotai-Kimi-K2.jinja")).toContain(`## Return of ${callId(0)}\\nr`);
  });

  it("errors name the template and carry its message", () => {
    expect(() => renderAssistantToolCalls("llama3", [WRITE, SEARCH])).toThrow(
      "meta-llama-Llama-3.1-8B-Instruct.jinja: This model only supports single tool-calls at once!",
    );
    expect(() => renderChat("{{ raise_exception('boom') }}", { messages: [], name: "mine.jinja" })).toThrow(
      "mine.jinja: boom",
    );
    expect(() => renderChat("{% if %}", { messages: [] })).toThrow(/^chat template: /);
  });
});

// The same renders through Python's jinja2 (as transformers sets it up, with a mutable sandbox as
// minja has) must match byte for byte. Skipped where python3 with jinja2 is not installed.
const PY_REF = String.raw`
import json, sys, jinja2, jinja2.ext
from datetime import datetime
from jinja2.sandbox import SandboxedEnvironment
def raise_exception(m): raise jinja2.exceptions.TemplateError(m)
def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)
env = SandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
env.filters["tojson"] = tojson
env.globals["raise_exception"] = raise_exception
env.globals["strftime_now"] = lambda f: datetime(2025, 1, 15).strftime(f)
out = []
for job in json.load(sys.stdin):
    try: out.append(env.from_string(job["template"]).render(**job["vars"]))
    except Exception as e: out.append("ERROR " + str(e))
json.dump(out, sys.stdout)
`;
const hasPythonJinja = (() => {
  try {
    execFileSync("python3", ["-c", "import jinja2"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!hasPythonJinja)("parity with Python jinja2", () => {
  it("renders every checked template's turns identically", () => {
    const jobs: { template: string; vars: Record<string, unknown> }[] = [];
    const ours: string[] = [];
    for (const [d, file, t] of cases) {
      const exp = EXPECT[file]!;
      const variants: { calls: Call[]; content?: string; reasoning?: string }[] = [
        { calls: exp.maxCalls === 1 ? [WRITE] : [WRITE, SEARCH] },
        // gpt-oss refuses content and reasoning together (quirk test above).
        {
          calls: [SEARCH],
          content: d === "gpt-oss" ? undefined : ` \n${CONTENT}\n`,
          reasoning: `\n  ${REASONING}  \n`,
        },
      ];
      for (const v of variants) {
        const messages: ChatMessage[] = [
          ...(t.noSystemMessage ? [] : [{ role: "system", content: SYSTEM }]),
          { role: "user", content: USER },
          assistantMessage(t, v.calls, { content: v.content, reasoning: v.reasoning }),
        ];
        const thinking = v.reasoning !== undefined;
        ours.push(renderDialect(d, messages, { template: file, tools: toolsFor(v.calls), thinking }));
        // Python gets the original template (its int-keyed dict is fine there) and plain objects.
        jobs.push({
          template: loadTemplate(file),
          vars: {
            messages,
            tools: toolsFor(v.calls),
            add_generation_prompt: false,
            bos_token: t.bosToken ?? "",
            eos_token: t.eosToken ?? "",
            ...t.thinking?.(thinking),
          },
        });
      }
    }
    const python = JSON.parse(
      execFileSync("python3", ["-c", PY_REF], { input: JSON.stringify(jobs), encoding: "utf8" }),
    ) as string[];
    expect(ours).toEqual(python);
  });
});
