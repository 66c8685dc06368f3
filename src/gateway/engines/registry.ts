// The upstream engines the gateway serves through, each describing what it needs (the model's
// tokenizer when its adapter takesGrammar, a model name) and what it takes (grammar syntaxes, a lazy grammar): the server and the
// CLI check a gateway's settings and build its adapter from this list, never by an engine's name.
// The paths the engines are asked on come from their adapters (requestPath, healthPath): an upstream
// URL naming one is refused (upstream-url.ts).
import type { GrammarSyntax } from "./grammar-text.js";
import { llamaServer, llamaServerEngine } from "./llama-server.js";
import { openaiCompatible } from "./openai.js";
import { sglang } from "./sglang.js";
import type { EngineAdapter, EngineName } from "./types.js";
import { vllm } from "./vllm.js";

/** The settings a gateway gives its engine (GatewayOptions' fields of the same names). */
export interface EngineSettings {
  grammarSyntax?: GrammarSyntax | undefined;
  lazyGrammar?: boolean | undefined;
}

export interface EngineDescription {
  readonly name: EngineName;
  /** The grammar syntaxes it reads (the grammarSyntax setting, the first one the default); none: the setting does not apply. */
  readonly grammarSyntaxes: readonly GrammarSyntax[];
  /** Takes the lazyGrammar setting. */
  readonly lazyGrammar: boolean;
  /** Requests name the model (vLLM's --served-model-name, an OpenAI-style API's `model`): the served id unless set. */
  readonly namesModel: boolean;
  create(settings: EngineSettings): EngineAdapter;
}

export const ENGINES: readonly EngineDescription[] = [
  {
    name: "llama-server",
    grammarSyntaxes: [],
    lazyGrammar: true,
    namesModel: false,
    create: (s) => (s.lazyGrammar === undefined ? llamaServer : llamaServerEngine({ lazy: s.lazyGrammar })),
  },
  {
    name: "vllm",
    grammarSyntaxes: ["ebnf", "lark"],
    lazyGrammar: false,
    namesModel: true,
    create: (s) => vllm(s.grammarSyntax),
  },
  {
    name: "sglang",
    grammarSyntaxes: ["ebnf", "lark"],
    lazyGrammar: false,
    namesModel: false,
    create: (s) => sglang(s.grammarSyntax),
  },
  {
    name: "openai",
    grammarSyntaxes: [],
    lazyGrammar: false,
    namesModel: true,
    create: () => openaiCompatible,
  },
];

export const ENGINE_NAMES: readonly EngineName[] = ENGINES.map((e) => e.name);

/** The paths the engines are asked on (their requests and health checks), longest first. */
export const ENGINE_ROUTES: readonly string[] = [
  ...new Set(
    ENGINES.flatMap((e) => {
      const adapter = e.create({});
      return [adapter.requestPath, adapter.healthPath];
    }),
  ),
].sort((a, b) => b.length - a.length);

export function engineNamed(name: unknown): EngineDescription | undefined {
  return ENGINES.find((e) => e.name === name);
}

/** A gateway's engine settings as given, before they are checked. */
export interface GivenEngineSettings {
  engine: unknown;
  grammarSyntax?: unknown;
  lazyGrammar?: unknown;
  tokenizer?: unknown;
}

/**
 * The first rule `g` breaks, as a sentence naming each setting as `name` spells it (an option
 * path, a CLI flag); undefined when the settings fit the engine.
 */
export function engineSettingsProblem(
  g: GivenEngineSettings,
  name: (setting: "engine" | "grammarSyntax" | "lazyGrammar" | "tokenizer") => string,
): string | undefined {
  const e = engineNamed(g.engine);
  if (!e)
    return `${name("engine")} must be one of ${ENGINE_NAMES.join(", ")}${g.engine === undefined ? "" : `, got ${JSON.stringify(g.engine)}`}`;
  const syntaxes = [...new Set(ENGINES.flatMap((x) => x.grammarSyntaxes))];
  if (g.grammarSyntax !== undefined) {
    if (!syntaxes.includes(g.grammarSyntax as GrammarSyntax))
      return `${name("grammarSyntax")} must be ${syntaxes.join(" or ")}, got ${JSON.stringify(g.grammarSyntax)}`;
    if (!e.grammarSyntaxes.includes(g.grammarSyntax as GrammarSyntax))
      return `${name("grammarSyntax")} goes with ${name("engine")} ${ENGINES.filter((x) =>
        x.grammarSyntaxes.includes(g.grammarSyntax as GrammarSyntax),
      )
        .map((x) => x.name)
        .join(" or ")}`;
  }
  if (g.lazyGrammar !== undefined) {
    if (typeof g.lazyGrammar !== "boolean") return `${name("lazyGrammar")} must be true or false`;
    if (!e.lazyGrammar)
      return `${name("lazyGrammar")} goes with ${name("engine")} ${ENGINES.filter((x) => x.lazyGrammar)
        .map((x) => x.name)
        .join(" or ")}`;
  }
  // An engine that takes a grammar is sent the prompt rendered here from the model's template.
  if (e.create({}).takesGrammar && (typeof g.tokenizer !== "string" || g.tokenizer === ""))
    return `${name("engine")} ${e.name} needs ${name("tokenizer")} (the model's .gguf file or Hugging Face folder): the gateway renders its prompts`;
  return undefined;
}
