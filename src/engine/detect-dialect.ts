// Which dialect a chat template writes tool calls in, from the markers it spells out. A template
// that spells out none gets the generic dialect (llama.cpp's JSON envelope, the tools described in
// the system message), with a notice: its model was not taught a call format, so calls may be
// worse than in a family's own; `dialect` given explicitly overrides it.

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
  ["lfm2", ["<|tool_call_start|>"]],
  // LFM2's own templates print content only; their tool list is LFM2's: <|tool_list_start|> (LFM2),
  // "List of tools: [" (LFM2.5), as llama.cpp detects them.
  ["lfm2", ["<|tool_list_start|>"]],
  ["lfm2", ["List of tools: [", "<|im_start|>"]],
];

export const GENERIC_DIALECT = "generic";

export interface DetectOptions {
  /**
   * Told when the template shows no tool-call format and the generic dialect is assumed. Default:
   * one line on stderr per template, silenced by TOOLMASK_QUIET=1.
   */
  onNotice?: (notice: string) => void;
}

/** The notice for a template that shows no tool calls. */
export function genericNotice(what: string): string {
  return `toolmask: ${what} shows no tool-call format; using the generic dialect (a JSON object holding the calls or the response, the tools described in the system message, as llama.cpp's generic handler); pass { dialect } to choose another, or set TOOLMASK_QUIET=1 to silence this`;
}

const noticed = new Set<string>();
/** A notice on stderr, once per process, unless TOOLMASK_QUIET=1. */
export function stderrNotice(notice: string): void {
  if (noticed.has(notice) || /^(1|true|yes)$/i.test(process.env.TOOLMASK_QUIET ?? "")) return;
  noticed.add(notice);
  process.stderr.write(`${notice}\n`);
}

/**
 * The dialect a template's tool calls are written in; "generic" (with a notice) when the template
 * shows none; undefined only for an empty template (no chat template at all).
 */
export function detectDialect(template: string, options: DetectOptions & { name?: string } = {}): string | undefined {
  if (template === "") return undefined;
  for (const [dialect, markers] of RULES) if (markers.every((m) => template.includes(m))) return dialect;
  (options.onNotice ?? stderrNotice)(genericNotice(options.name ?? "the chat template"));
  return GENERIC_DIALECT;
}

/**
 * Models whose weights write another dialect than their chat template shows, told apart by the
 * GGUF's general.name: [dialect the template gives, name pattern, dialect the model writes].
 * Qwen2.5-Coder keeps Qwen2.5's Hermes template but writes bare JSON calls (src/dialects/qwen2.5-coder.ts).
 */
const BY_MODEL_NAME: ReadonlyArray<[template: string, name: RegExp, dialect: string]> = [
  ["hermes", /qwen\s*2\.5[\s_-]*coder/i, "qwen2.5-coder"],
];

/** The notice for a model whose name, not its template, decides the dialect. */
export function modelNameNotice(what: string, name: string, template: string, dialect: string): string {
  return `toolmask: ${what} belongs to "${name}", a model that writes its calls in the ${dialect} dialect, not in the ${template} one the template shows; using ${dialect}; pass { dialect: "${template}" } to choose the template's, or set TOOLMASK_QUIET=1 to silence this`;
}

/**
 * The dialect of a model: its template's (detectDialect), unless its name (GGUF general.name) is
 * one of a family known to write another (with a notice).
 */
export function detectModelDialect(template: string, modelName: string | undefined, options: DetectOptions & { name?: string } = {}): string | undefined {
  const fromTemplate = detectDialect(template, options);
  if (modelName === undefined) return fromTemplate;
  for (const [t, pattern, dialect] of BY_MODEL_NAME) {
    if (t !== fromTemplate || !pattern.test(modelName)) continue;
    (options.onNotice ?? stderrNotice)(modelNameNotice(options.name ?? "the model", modelName, t, dialect));
    return dialect;
  }
  return fromTemplate;
}
