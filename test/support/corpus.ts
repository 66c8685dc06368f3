// Outputs to feed the parser: seed cases, adversarial hand-written ones, and generated
// calls with tricky values, whole and cut at random places.
import { glmMinimaxCorpus } from "./corpus-glm-minimax.js";
import { rng } from "./tokenize.js";

const TRICKY = ["", "a", "<", "</", "<tool", "<tool_call", "</tool_call>", "</parameter", "</param", "<function=", "{", "}", '"', "\\", "\n", "\n\n", "é✓😀", "中文", "<think>", "</think>", "{\"name\": ", "]]>", " "];

/** Dialects the generator below can write calls for. */
export const CORPUS_DIALECTS = ["qwen3-coder", "hermes", "seed-oss", "mistral", "deepseek-v3.1", "kimi-k2"] as const;
export type CorpusDialect = (typeof CORPUS_DIALECTS)[number] | "glm-4.5" | "minimax-m2";
export interface CorpusCase { name: string; dialect: CorpusDialect; text: string }

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
function jsonCall(name: string, args: Record<string, unknown>): string {
  return `<tool_call>\n${JSON.stringify({ name, arguments: args }, null, 0).replace(/","/g, '", "').replace(/":/g, '": ')}\n</tool_call>`;
}

const GENERATED: readonly CorpusDialect[] = ["qwen3-coder", "hermes", "seed-oss", "mistral", "deepseek-v3.1"];

/** Seed and adversarial cases, then generated ones (of `generated` dialects) up to `size`. */
export function buildCorpus(size: number, seed = 7, generated: readonly CorpusDialect[] = GENERATED): CorpusCase[] {
  const r = rng(seed);
  const pick = <T>(a: T[]): T => a[Math.floor(r() * a.length)]!;
  const junk = (n: number) => Array.from({ length: n }, () => pick(TRICKY)).join("");
  const value = () => pick([junk(3), "plain text", "/tmp/x.c", "42", '{"a": 1}', "line1\nline2", junk(6), "[TOOL_CALLS]", "[ARGS]"]).replaceAll("</parameter>", "</param>");
  const out: CorpusCase[] = [
    { name: "seed000 read empty", dialect: "qwen3-coder", text: "<tool_call>\n<function=read>\n<parameter=path>\n\n</parameter></function>\n" },
    { name: "seed000 write empty content", dialect: "qwen3-coder", text: "<tool_call>\n<function=write>\n<parameter=path>\n/tmp/x.c\n</parameter>\n<parameter=content>\n\n</parameter>\n" },
    { name: "seed001 undeclared", dialect: "qwen3-coder", text: xmlCall("get_indicators", [["symbol", "1"]], true) },
    { name: "marker prefixes in content", dialect: "qwen3-coder", text: "a <tool b <tool_cal c </tool_call> d <tool_call" },
    { name: "thought quoting a call", dialect: "qwen3-coder", text: "<think>I could write " + xmlCall("read", [["path", "a"]], true) + "</think>ok" },
    { name: "thought never closed", dialect: "hermes", text: "<think>hmm <tool_call> {" },
    { name: "hermes pretty", dialect: "hermes", text: 'x <tool_call>\n{"name": "write", "arguments": {"path": "a", "content": "}{\\"<"}}\n</tool_call>\ny' },
    { name: "hermes cut in string", dialect: "hermes", text: '<tool_call>\n{"name": "write", "arguments": {"path": "a}' },
    { name: "seed scope never closed", dialect: "seed-oss", text: seedCall("read", [["path", "a"]], false) },
    { name: "seed scope cut", dialect: "seed-oss", text: "Hello <seed:tool_call>\n" },
    { name: "deepseek section never closed", dialect: "deepseek-v3.1", text: `<｜tool▁calls▁begin｜>${deepseekCall("read", { path: "a" })}` },
    { name: "deepseek two calls", dialect: "deepseek-v3.1", text: `x<｜tool▁calls▁begin｜>${deepseekCall("read", { path: "a" })}${deepseekCall("write", { path: "b", content: "<｜tool▁sep｜>" })}<｜tool▁calls▁end｜>` },
    { name: "kimi two calls", dialect: "kimi-k2", text: `ok<|tool_calls_section_begin|><|tool_call_begin|>functions.read:0<|tool_call_argument_begin|>{"path": "a"}<|tool_call_end|><|tool_call_begin|>functions.write:1<|tool_call_argument_begin|>{"path": "b", "content": ":1<|"}<|tool_call_end|><|tool_calls_section_end|>` },
    { name: "kimi cut in index", dialect: "kimi-k2", text: "<|tool_calls_section_begin|><|tool_call_begin|>functions.read:1" },
    { name: "mistral two calls", dialect: "mistral", text: mistralCall("read", { path: "a" }) + mistralCall("write", { path: "b", content: "}{[ARGS]" }) },
    { name: "mistral cut in args", dialect: "mistral", text: '[TOOL_CALLS]write[ARGS]{"path": "a", "con' },
    ...glmMinimaxCorpus(40),
  ];
  while (out.length < size) {
    const dialect = pick([...generated]);
    let text = r() < 0.5 ? junk(Math.floor(r() * 4)) : "";
    const n = 1 + Math.floor(r() * 3);
    const section = dialect === "deepseek-v3.1" ? ["<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"] : dialect === "kimi-k2" ? ["<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"] : undefined;
    if (section) text += section[0];
    for (let i = 0; i < n; i++) {
      const name = pick(["read", "write", "edit", "nope"]);
      const params: Array<[string, string]> = name === "read" ? [["path", value()]] : name === "write" ? [["path", value()], ["content", value()]] :
        name === "edit" ? [["path", value()], ["old_string", value()], ["new_string", value()]] : [["x", value()]];
      if (r() < 0.5) params.reverse();
      text += dialect === "qwen3-coder" ? xmlCall(name, params, r() < 0.7)
        : dialect === "seed-oss" ? seedCall(name, params, i < n - 1 || r() < 0.6)
        : dialect === "mistral" ? mistralCall(name, Object.fromEntries(params))
        : dialect === "deepseek-v3.1" ? deepseekCall(name, Object.fromEntries(params))
        : dialect === "kimi-k2" ? kimiCall(name, Object.fromEntries(params), i)
        : jsonCall(name, Object.fromEntries(params));
      if (r() < 0.3 && !section) text += junk(2);
    }
    if (section && r() < 0.85) text += section[1] + (r() < 0.3 ? junk(2) : "");
    if (r() < 0.35) text = text.slice(0, Math.floor(r() * text.length));
    out.push({ name: `generated #${out.length}`, dialect, text });
  }
  return out;
}
