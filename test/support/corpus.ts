// Outputs to feed the parser: seed cases, adversarial hand-written ones, and generated
// calls with tricky values, whole and cut at random places.
import { glmMinimaxCorpus } from "./corpus-glm-minimax.js";
import { rng } from "./tokenize.js";

const TRICKY = [
  "",
  "a",
  "<",
  "</",
  "<tool",
  "<tool_call",
  "</tool_call>",
  "</parameter",
  "</param",
  "<function=",
  "{",
  "}",
  '"',
  "\\",
  "\n",
  "\n\n",
  "é✓😀",
  "中文",
  "<think>",
  "</think>",
  '{"name": ',
  "]]>",
  " ",
];

/** Dialects the generator below can write calls for. */
export const CORPUS_DIALECTS = [
  "qwen3-coder",
  "hermes",
  "seed-oss",
  "mistral",
  "mistral-nemo",
  "llama3",
  "deepseek-v3.1",
  "kimi-k2",
] as const;
export type CorpusDialect = (typeof CORPUS_DIALECTS)[number] | "glm-4.5" | "minimax-m2" | "gpt-oss";
export interface CorpusCase {
  name: string;
  dialect: CorpusDialect;
  text: string;
}

function xmlCall(name: string, params: Array<[string, string]>, pad: boolean): string {
  const nl = pad ? "\n" : "";
  return `<tool_call>\n<function=${name}>\n${params.map(([k, v]) => `<parameter=${k}>${nl}${v}${nl}</parameter>\n`).join("")}</function>\n</tool_call>`;
}
function seedCall(name: string, params: Array<[string, string]>, closeScope: boolean): string {
  return `<seed:tool_call>\n<function=${name}>\n${params.map(([k, v]) => `<parameter=${k}>${v}</parameter>\n`).join("")}</function>${closeScope ? "\n</seed:tool_call>" : ""}`;
}
function deepseekCall(name: string, args: Record<string, unknown>): string {
  return `<｜tool▁call▁begin｜>${name}<｜tool▁sep｜>${JSON.stringify(args)}<｜tool▁call▁end｜>`;
}
function kimiCall(name: string, args: Record<string, unknown>, i: number): string {
  return `<|tool_call_begin|>functions.${name}:${i}<|tool_call_argument_begin|>${JSON.stringify(args)}<|tool_call_end|>`;
}
function mistralCall(name: string, args: Record<string, unknown>): string {
  return `[TOOL_CALLS]${name}[ARGS]${JSON.stringify(args)}`;
}
function nemoCall(name: string, args: Record<string, unknown>, id: string): string {
  return `{"name": "${name}", "arguments": ${JSON.stringify(args)}, "id": "${id}"}`;
}
function llamaCall(name: string, args: Record<string, unknown>): string {
  return `{"name": "${name}", "parameters": ${JSON.stringify(args)}}`;
}
function jsonCall(name: string, args: Record<string, unknown>): string {
  return `<tool_call>\n${JSON.stringify({ name, arguments: args }, null, 0).replace(/","/g, '", "').replace(/":/g, '": ')}\n</tool_call>`;
}

const HARMONY_TRICKY = [
  "<|end|>",
  "<|call|>",
  "<|start|>assistant",
  "<|channel|>",
  " to=functions.",
  "<|message|>",
  "<|return|>",
  "<|",
];
/** A harmony call message: the recipient in the role header or after the channel, a content type or none. */
function harmonyCall(name: string, args: Record<string, unknown>, inRole: boolean, type: string): string {
  return inRole
    ? ` to=functions.${name}<|channel|>commentary${type}<|message|>${JSON.stringify(args)}`
    : `<|channel|>commentary to=functions.${name}${type}<|message|>${JSON.stringify(args)}`;
}

const GENERATED: readonly CorpusDialect[] = [
  "qwen3-coder",
  "hermes",
  "seed-oss",
  "mistral",
  "mistral-nemo",
  "llama3",
  "deepseek-v3.1",
];

/** Seed and adversarial cases, then generated ones (of `generated` dialects) up to `size`. */
export function buildCorpus(size: number, seed = 7, generated: readonly CorpusDialect[] = GENERATED): CorpusCase[] {
  const r = rng(seed);
  const pick = <T>(a: T[]): T => a[Math.floor(r() * a.length)]!;
  const junk = (n: number) => Array.from({ length: n }, () => pick(TRICKY)).join("");
  const value = () =>
    pick([
      junk(3),
      "plain text",
      "/tmp/x.c",
      "42",
      '{"a": 1}',
      "line1\nline2",
      junk(6),
      "[TOOL_CALLS]",
      "[ARGS]",
    ]).replaceAll("</parameter>", "</param>");
  const out: CorpusCase[] = [
    {
      name: "seed000 read empty",
      dialect: "qwen3-coder",
      text: "<tool_call>\n<function=read>\n<parameter=path>\n\n</parameter></function>\n",
    },
    {
      name: "seed000 write empty content",
      dialect: "qwen3-coder",
      text: "<tool_call>\n<function=write>\n<parameter=path>\n/tmp/x.c\n</parameter>\n<parameter=content>\n\n</parameter>\n",
    },
    { name: "seed001 undeclared", dialect: "qwen3-coder", text: xmlCall("get_indicators", [["symbol", "1"]], true) },
    {
      name: "marker prefixes in content",
      dialect: "qwen3-coder",
      text: "a <tool b <tool_cal c </tool_call> d <tool_call",
    },
    {
      name: "thought quoting a call",
      dialect: "qwen3-coder",
      text: "<think>I could write " + xmlCall("read", [["path", "a"]], true) + "</think>ok",
    },
    { name: "thought never closed", dialect: "hermes", text: "<think>hmm <tool_call> {" },
    {
      name: "hermes pretty",
      dialect: "hermes",
      text: 'x <tool_call>\n{"name": "write", "arguments": {"path": "a", "content": "}{\\"<"}}\n</tool_call>\ny',
    },
    {
      name: "hermes cut in string",
      dialect: "hermes",
      text: '<tool_call>\n{"name": "write", "arguments": {"path": "a}',
    },
    { name: "seed scope never closed", dialect: "seed-oss", text: seedCall("read", [["path", "a"]], false) },
    { name: "seed scope cut", dialect: "seed-oss", text: "Hello <seed:tool_call>\n" },
    {
      name: "deepseek section never closed",
      dialect: "deepseek-v3.1",
      text: `<｜tool▁calls▁begin｜>${deepseekCall("read", { path: "a" })}`,
    },
    {
      name: "deepseek two calls",
      dialect: "deepseek-v3.1",
      text: `x<｜tool▁calls▁begin｜>${deepseekCall("read", { path: "a" })}${deepseekCall("write", { path: "b", content: "<｜tool▁sep｜>" })}<｜tool▁calls▁end｜>`,
    },
    { name: "deepseek junk in section", dialect: "deepseek-v3.1", text: "<｜tool▁calls▁begin｜>junk, then text" },
    {
      name: "kimi two calls",
      dialect: "kimi-k2",
      text: `ok<|tool_calls_section_begin|><|tool_call_begin|>functions.read:0<|tool_call_argument_begin|>{"path": "a"}<|tool_call_end|><|tool_call_begin|>functions.write:1<|tool_call_argument_begin|>{"path": "b", "content": ":1<|"}<|tool_call_end|><|tool_calls_section_end|>`,
    },
    {
      name: "kimi cut in index",
      dialect: "kimi-k2",
      text: "<|tool_calls_section_begin|><|tool_call_begin|>functions.read:1",
    },
    {
      name: "mistral two calls",
      dialect: "mistral",
      text: mistralCall("read", { path: "a" }) + mistralCall("write", { path: "b", content: "}{[ARGS]" }),
    },
    { name: "mistral cut in args", dialect: "mistral", text: '[TOOL_CALLS]write[ARGS]{"path": "a", "con' },
    ...glmMinimaxCorpus(40),
    { name: "gpt-oss template call", dialect: "gpt-oss", text: harmonyCall("read", { path: "a" }, true, " json") },
    {
      name: "gpt-oss thought, preamble, a call; a second call after <|call|> is invalid",
      dialect: "gpt-oss",
      text: `<|channel|>analysis<|message|>I could call${harmonyCall("read", { path: "x" }, false, "")}<|end|><|start|>assistant<|channel|>commentary<|message|>Reading.<|end|><|start|>assistant${harmonyCall("read", { path: "<|call|><|start|>assistant" }, false, " <|constrain|>json")}<|call|><|start|>assistant${harmonyCall("write", { path: "b", content: "}{" }, true, "")}<|call|>`,
    },
    {
      name: "gpt-oss cut in args",
      dialect: "gpt-oss",
      text: '<|channel|>commentary to=functions.write <|constrain|>json<|message|>{"path": "a", "con',
    },
    { name: "gpt-oss cut in name", dialect: "gpt-oss", text: "<|channel|>commentary to=functions.wr" },
    {
      name: "gpt-oss undeclared",
      dialect: "gpt-oss",
      text: harmonyCall("get_indicators", { symbol: "1" }, false, " <|constrain|>json") + "<|call|>",
    },
    {
      name: "gpt-oss builtin recipient",
      dialect: "gpt-oss",
      text: ' to=browser.search<|channel|>commentary json<|message|>{"q": 1}<|call|>',
    },
    {
      name: "gpt-oss final",
      dialect: "gpt-oss",
      text: "<|channel|>analysis<|message|>hmm<|end|><|start|>assistant<|channel|>final<|message|>Done <|end|>.<|return|>",
    },
    {
      name: "gpt-oss call without its end",
      dialect: "gpt-oss",
      text: `${harmonyCall("read", { path: "a" }, true, "")}<|start|>assistant${harmonyCall("read", { path: "b" }, true, "")}`,
    },
    {
      name: "gpt-oss call on the analysis channel",
      dialect: "gpt-oss",
      text: ' to=functions.read<|channel|>analysis<|message|>{"path": "a"}<|call|>',
    },
    {
      name: "mistral small 3.2 ids",
      dialect: "mistral",
      text: '[TOOL_CALLS]read[CALL_ID]a1b2c3d4e[ARGS]{"path": "a"}[TOOL_CALLS]write[ARGS]{"path": "b", "content": "[CALL_ID]"}',
    },
    { name: "mistral cut in call id", dialect: "mistral", text: "[TOOL_CALLS]read[CALL_ID]a1b2" },
    { name: "mistral bad call id", dialect: "mistral", text: '[TOOL_CALLS]read[CALL_ID]a-b[ARGS]{"path": "a"} after' },
    {
      name: "nemo two calls",
      dialect: "mistral-nemo",
      text: `ok [TOOL_CALLS][${nemoCall("read", { path: "a]" }, "abcdefghi")}, ${nemoCall("write", { path: "b", content: "}, {" }, "ABCDEFGH1")}]`,
    },
    {
      name: "nemo spaced",
      dialect: "mistral-nemo",
      text: `[TOOL_CALLS] [\n ${nemoCall("read", { path: "a" }, "abcdefghi")} \n]\n`,
    },
    { name: "nemo no id", dialect: "mistral-nemo", text: '[TOOL_CALLS][{"name": "read", "arguments": {"path": "a"}}]' },
    {
      name: "nemo undeclared second",
      dialect: "mistral-nemo",
      text: `[TOOL_CALLS][${nemoCall("read", { path: "a" }, "abcdefghi")}, ${nemoCall("nope", {}, "abcdefghi")}]`,
    },
    { name: "nemo empty array", dialect: "mistral-nemo", text: "[TOOL_CALLS][] x" },
    {
      name: "nemo cut after a call",
      dialect: "mistral-nemo",
      text: `[TOOL_CALLS][${nemoCall("read", { path: "a" }, "abcdefghi")},`,
    },
    {
      name: "llama call",
      dialect: "llama3",
      text: `\n ${llamaCall("write", { path: "a", content: '{"name": "read"}' })}\n`,
    },
    { name: "llama braces in content", dialect: "llama3", text: `Use {x}, then ${llamaCall("read", { path: "a" })}` },
    { name: "llama JSON answer", dialect: "llama3", text: ' {"a": 1} is JSON' },
    {
      name: "llama text after call",
      dialect: "llama3",
      text: `${llamaCall("read", { path: "a" })}; ${llamaCall("read", { path: "b" })}`,
    },
    { name: "llama cut in name", dialect: "llama3", text: '{"name": "rea' },
    {
      name: "kimi ids",
      dialect: "kimi-k2",
      text: `<|tool_calls_section_begin|><|tool_call_begin|>functions.read:10<|tool_call_argument_begin|>{"path": "a"}<|tool_call_end|><|tool_calls_section_end|>`,
    },
  ];
  // A harmony turn: a thought and a preamble perhaps, then a final message or calls; cut at times.
  const harmonyTurn = () => {
    const body = () => pick([junk(2), "plain text", "x" + pick(HARMONY_TRICKY) + "y", ""]);
    const messages: string[] = [];
    if (r() < 0.5) messages.push(`<|channel|>analysis<|message|>${body()}<|end|>`);
    if (r() < 0.3) messages.push(`<|channel|>commentary<|message|>${body()}<|end|>`);
    let text = messages.join("<|start|>assistant");
    if (messages.length) text += "<|start|>assistant";
    if (r() < 0.3) {
      text += `<|channel|>final<|message|>${body()}${pick(["", "<|return|>", "<|end|>"])}`;
    } else {
      const n = 1 + Math.floor(r() * 2);
      for (let i = 0; i < n; i++) {
        const name = pick(["read", "write", "edit", "nope"]);
        const v = () => pick([value(), pick(HARMONY_TRICKY), "42"]);
        const args =
          name === "read"
            ? { path: v() }
            : name === "write"
              ? { path: v(), content: v() }
              : name === "edit"
                ? { path: v(), old_string: v(), new_string: v() }
                : { x: v() };
        text +=
          (i > 0 ? "<|call|><|start|>assistant" : "") +
          harmonyCall(name, args, r() < 0.5, pick(["", " json", " <|constrain|>json"]));
      }
      if (r() < 0.5) text += "<|call|>";
    }
    if (r() < 0.1) text = junk(2) + text;
    if (r() < 0.35) text = text.slice(0, Math.floor(r() * text.length));
    return text;
  };
  while (out.length < size) {
    const dialect = pick([...generated]);
    let text = r() < 0.5 ? junk(Math.floor(r() * 4)) : "";
    const n = 1 + Math.floor(r() * 3);
    const section =
      dialect === "deepseek-v3.1"
        ? ["<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"]
        : dialect === "kimi-k2"
          ? ["<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"]
          : dialect === "mistral-nemo"
            ? ["[TOOL_CALLS][", "]"]
            : undefined;
    if (section) text += section[0];
    if (dialect === "llama3") text = r() < 0.7 ? pick(["", " ", "\n\n"]) : text;
    for (let i = 0; i < n; i++) {
      const name = pick(["read", "write", "edit", "nope"]);
      const params: Array<[string, string]> =
        name === "read"
          ? [["path", value()]]
          : name === "write"
            ? [
                ["path", value()],
                ["content", value()],
              ]
            : name === "edit"
              ? [
                  ["path", value()],
                  ["old_string", value()],
                  ["new_string", value()],
                ]
              : [["x", value()]];
      if (r() < 0.5) params.reverse();
      text +=
        dialect === "qwen3-coder"
          ? xmlCall(name, params, r() < 0.7)
          : dialect === "seed-oss"
            ? seedCall(name, params, i < n - 1 || r() < 0.6)
            : dialect === "mistral"
              ? r() < 0.5
                ? mistralCall(name, Object.fromEntries(params))
                : mistralCall(name, Object.fromEntries(params)).replace(
                    "[ARGS]",
                    `[CALL_ID]call${String(i).padStart(5, "0")}[ARGS]`,
                  )
              : dialect === "mistral-nemo"
                ? (i > 0 ? ", " : "") + nemoCall(name, Object.fromEntries(params), `call${String(i).padStart(5, "0")}`)
                : dialect === "llama3"
                  ? i === 0
                    ? llamaCall(name, Object.fromEntries(params))
                    : ""
                  : dialect === "deepseek-v3.1"
                    ? deepseekCall(name, Object.fromEntries(params))
                    : dialect === "kimi-k2"
                      ? kimiCall(name, Object.fromEntries(params), i)
                      : jsonCall(name, Object.fromEntries(params));
      if (r() < 0.3 && !section) text += junk(2);
    }
    if (section && r() < 0.85) text += section[1] + (r() < 0.3 ? junk(2) : "");
    if (r() < 0.35) text = text.slice(0, Math.floor(r() * text.length));
    out.push({ name: `generated #${out.length}`, dialect, text });
  }
  // Harmony turns come after, so the other dialects' generated cases stay as they were.
  for (let k = Math.ceil(size / 10); k > 0; k--)
    out.push({ name: `generated #${out.length}`, dialect: "gpt-oss", text: harmonyTurn() });
  return out;
}
