// Which dialect a chat template writes tool calls in, from the markers it spells out. A template
// that spells out none gets the generic dialect (llama.cpp's JSON envelope, the tools described in
// the system message), with a notice: its model was not taught a call format, so calls may be
// worse than in a family's own; `dialect` given explicitly overrides it. The markers are each
// DialectSpec's `detect` (src/dialects/spec.ts).
import { dialects, getDialect } from "../dialects/index.js";

/** Tools were given for a model whose chat template does not show its tool-call dialect. */
export class UnknownDialectError extends Error {
  readonly modelPath: string;
  constructor(modelPath: string) {
    super(
      `cannot tell the tool-call dialect of ${modelPath} from its chat template; pass { dialect } (one of the names in \`dialects\`)`,
    );
    this.name = "UnknownDialectError";
    this.modelPath = modelPath;
  }
}

/** [dialect, markers] from each DialectSpec's `detect`, highest priority first (the first match wins). */
const RULES: ReadonlyArray<[dialect: string, markers: readonly string[]]> = dialects
  .map(getDialect)
  .filter((d) => d.detect?.markers !== undefined)
  .sort((a, b) => (b.detect!.priority ?? 0) - (a.detect!.priority ?? 0) || a.name.localeCompare(b.name))
  .flatMap((d) => d.detect!.markers!.map((m): [string, readonly string[]] => [d.name, m]));

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

/** [dialect the template gives, GGUF general.name pattern, dialect the model writes], from each DialectSpec's `detect.modelName`. */
const BY_MODEL_NAME: ReadonlyArray<[template: string, name: RegExp, dialect: string]> = dialects
  .map(getDialect)
  .flatMap((d) =>
    d.detect?.modelName
      ? [[d.detect.modelName.template, d.detect.modelName.pattern, d.name] as [string, RegExp, string]]
      : [],
  );

/** The notice for a model whose name, not its template, decides the dialect. */
export function modelNameNotice(what: string, name: string, template: string, dialect: string): string {
  return `toolmask: ${what} belongs to "${name}", a model that writes its calls in the ${dialect} dialect, not in the ${template} one the template shows; using ${dialect}; pass { dialect: "${template}" } to choose the template's, or set TOOLMASK_QUIET=1 to silence this`;
}

/**
 * The dialect of a model: its template's (detectDialect), unless its name (GGUF general.name) is
 * one of a family known to write another (with a notice).
 */
export function detectModelDialect(
  template: string,
  modelName: string | undefined,
  options: DetectOptions & { name?: string } = {},
): string | undefined {
  const fromTemplate = detectDialect(template, options);
  if (modelName === undefined) return fromTemplate;
  for (const [t, pattern, dialect] of BY_MODEL_NAME) {
    if (t !== fromTemplate || !pattern.test(modelName)) continue;
    (options.onNotice ?? stderrNotice)(modelNameNotice(options.name ?? "the model", modelName, t, dialect));
    return dialect;
  }
  return fromTemplate;
}
