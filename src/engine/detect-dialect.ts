// Which dialect a chat template writes tool calls in, from the markers it spells out. Only the
// unambiguous cases: anything else needs `dialect` given explicitly.

/** Tools were given for a model whose chat template does not show its tool-call dialect. */
export class UnknownDialectError extends Error {
  readonly modelPath: string;
  constructor(modelPath: string) {
    super(`cannot tell the tool-call dialect of ${modelPath} from its chat template; pass { dialect } (one of the names in \`dialects\`)`);
    this.name = "UnknownDialectError";
    this.modelPath = modelPath;
  }
}

/** First rule whose markers all occur wins; order matters (Seed-OSS also writes `<function=`). */
const RULES: ReadonlyArray<[dialect: string, markers: readonly string[]]> = [
  ["seed-oss", ["<seed:tool_call>"]],
  ["minimax-m2", ["<minimax:tool_call>"]],
  ["kimi-k2", ["<|tool_calls_section_begin|>"]],
  ["deepseek-v3.1", ["<｜tool▁calls▁begin｜>"]],
  ["gpt-oss", ["<|channel|>", "<|call|>"]],
  ["glm-4.5", ["<tool_call>", "<arg_key>"]],
  ["qwen3-coder", ["<tool_call>", "<function="]],
  ["hermes", ["<tool_call>"]],
  ["mistral", ["[TOOL_CALLS]", "[ARGS]"]],
  ["mistral-nemo", ["[TOOL_CALLS]"]],
  ["llama3", ["ipython", '"parameters"']],
];

/** The dialect a template's tool calls are written in, or undefined when it is not obvious. */
export function detectDialect(template: string): string | undefined {
  for (const [dialect, markers] of RULES) if (markers.every((m) => template.includes(m))) return dialect;
  return undefined;
}
