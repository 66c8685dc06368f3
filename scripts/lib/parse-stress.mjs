// Stress inputs for the streaming parser, per dialect: one call whose string value is `n`
// characters long, an opener repeated to `n` characters, plain text of `n` characters. What
// `npm run bench:parse -- --stress` times (scripts/bench-parse.mjs) and the fuzz suite grows.

/** `n` characters of prose without any dialect's markup or JSON escapes. */
export function prose(n) {
  const unit = "lorem ipsum dolor sit amet, consectetur adipiscing elit; ";
  return unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
}

/** A call of `write(path, content)` whose content is `v`, as each dialect writes it. */
export const CALLS = {
  "qwen3-coder": (v) => `<tool_call>\n<function=write>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content>\n${v}\n</parameter>\n</function>\n</tool_call>`,
  "seed-oss": (v) => `<seed:tool_call>\n<function=write>\n<parameter=path>a.txt</parameter>\n<parameter=content>${v}</parameter>\n</function>\n</seed:tool_call>`,
  hermes: (v) => `<tool_call>\n{"name": "write", "arguments": {"path": "a.txt", "content": "${v}"}}\n</tool_call>`,
  mistral: (v) => `[TOOL_CALLS]write[ARGS]{"path": "a.txt", "content": "${v}"}`,
  "mistral-nemo": (v) => `[TOOL_CALLS][{"name": "write", "arguments": {"path": "a.txt", "content": "${v}"}, "id": "abcdefghi"}]`,
  llama3: (v) => `{"name": "write", "parameters": {"path": "a.txt", "content": "${v}"}}`,
  "deepseek-v3.1": (v) => `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write<｜tool▁sep｜>{"path": "a.txt", "content": "${v}"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`,
  "kimi-k2": (v) => `<|tool_calls_section_begin|><|tool_call_begin|>functions.write:0<|tool_call_argument_begin|>{"path": "a.txt", "content": "${v}"}<|tool_call_end|><|tool_calls_section_end|>`,
  "glm-4.5": (v) => `<tool_call>write\n<arg_key>path</arg_key>\n<arg_value>a.txt</arg_value>\n<arg_key>content</arg_key>\n<arg_value>${v}</arg_value>\n</tool_call>`,
  "minimax-m2": (v) => `<minimax:tool_call>\n<invoke name="write">\n<parameter name="path">a.txt</parameter>\n<parameter name="content">${v}</parameter>\n</invoke>\n</minimax:tool_call>`,
  "gpt-oss": (v) => `<|channel|>commentary to=functions.write <|constrain|>json<|message|>{"path": "a.txt", "content": "${v}"}<|call|>`,
};

/** The text that opens each dialect's call structure (repeated, it is an opener flood). */
export const OPENERS = {
  "qwen3-coder": "<tool_call>", "seed-oss": "<seed:tool_call>", hermes: "<tool_call>", mistral: "[TOOL_CALLS]",
  "mistral-nemo": "[TOOL_CALLS]", llama3: "{", "deepseek-v3.1": "<｜tool▁calls▁begin｜>", "kimi-k2": "<|tool_calls_section_begin|>",
  "glm-4.5": "<tool_call>", "minimax-m2": "<minimax:tool_call>", "gpt-oss": "<|channel|>commentary to=functions.",
};

const fn = (name, properties) => ({ type: "function", function: { name, parameters: { type: "object", properties, required: Object.keys(properties) } } });
/** The tools the stress calls name. */
export const STRESS_TOOLS = [fn("read", { path: { type: "string" } }), fn("write", { path: { type: "string" }, content: { type: "string" } })];

/** The stress input of `kind` ("value", "flood", "text") for `dialect`, about `n` characters. */
export function stressText(kind, dialect, n) {
  if (kind === "value") return CALLS[dialect](prose(n));
  if (kind === "flood") { const o = OPENERS[dialect]; return o.repeat(Math.ceil(n / o.length)); }
  if (kind === "text") return prose(n);
  throw new Error(`unknown stress kind ${JSON.stringify(kind)}: value, flood or text`);
}
