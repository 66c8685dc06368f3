// The parity corpus: outputs both our parser and llama.cpp's read, each with the template, tools and
// thinking switch llama.cpp needs to read it the way we do. Every registered dialect with real
// templates (template-fixtures.ts) takes part with what its templates write and the corpus's fixed
// cases of it; one the corpus generator writes (CORPUS_DIALECTS in corpus.ts) also with generated outputs.
import { dialects, getDialect } from "../../src/index.js";
import { buildCorpus, CORPUS_DIALECTS, type CorpusDialect } from "./corpus.js";
import {
  DIALECT_TEMPLATES,
  renderAssistantToolCalls,
  toolsFor,
  type Call,
  type TemplateDialect,
} from "./template-fixtures.js";
import { FILE_TOOLS } from "./tools.js";

export interface ParityCase {
  name: string;
  dialect: string;
  /** A file of llama.cpp's models/templates/. */
  template: string;
  bosToken?: string;
  eosToken?: string;
  tools: unknown[];
  text: string;
  /** The template's thinking switch (llama.cpp's enable_thinking). */
  thinking: boolean;
  /** parallelToolCalls / parallel_tool_calls (default true). */
  parallel?: boolean;
  /** llama.cpp's reasoning_format: "deepseek" (default; thoughts extracted) or "none" (ours: reasoning false). */
  reasoningFormat?: "deepseek" | "none";
}

/** Calls the real templates write (the same shapes as dialect-templates.test.ts). */
const CALLS: Call[][] = [
  [
    {
      name: "write_file",
      arguments: { path: "/tmp/a b.txt", content: 'line 1\nline "2" <b>&</b>\n', ok: true, mode: 420 },
    },
  ],
  [
    { name: "read_file", arguments: { path: "☃/x", limit: 3 } },
    {
      name: "search",
      arguments: { query: "", filters: { lang: "ts", deep: { n: [1, 2] } }, tags: ["a", "b"], ratio: 0.25 },
    },
  ],
  [{ name: "noop", arguments: {} }],
  // Strings that look like other types (seed 003): they stay strings.
  [{ name: "label", arguments: { text: "42", flag: "true", obj: '{"a": 1}' } }],
];

const GENERATED_PER_DIALECT = 50;

/** Registered dialects with real templates: llama.cpp reads all of them (its PEG parsers follow the template). */
export function parityDialects(): string[] {
  // Harmony (gpt-oss) turns are messages, not calls in text: test/programs/dialect-gpt-oss.test.ts compares
  // them with llama.cpp case by case, and these generic probes (a thought, then text) do not apply.
  // The generic dialect follows llama.cpp's generic handler, which the llama.cpp that node-llama-cpp
  // bundles no longer has: its autoparser reads a template without tool calls as content only
  // (docs/parity.md, "generic").
  return dialects.filter((d) => d in DIALECT_TEMPLATES && getDialect(d).call.kind !== "harmony" && d !== "generic");
}

const generated = (d: string): d is CorpusDialect => (CORPUS_DIALECTS as readonly string[]).includes(d);

export function buildParityCorpus(): ParityCase[] {
  const out: ParityCase[] = [];
  for (const dialect of parityDialects()) {
    const templates = DIALECT_TEMPLATES[dialect as TemplateDialect];
    // The chunk-invariance corpus's fixed cases of this dialect (seed, adversarial, and for GLM and
    // MiniMax their own hand-written and generated ones), plus generated ones where the generator writes it.
    const fixed = buildCorpus(0);
    const texts = [
      ...fixed.filter((c) => c.dialect === dialect),
      ...(generated(dialect)
        ? buildCorpus(fixed.length + GENERATED_PER_DIALECT, 11, [dialect]).slice(fixed.length)
        : []),
    ];
    for (const t of templates) {
      const tb = { dialect, template: t.file, bosToken: t.bosToken, eosToken: t.eosToken };
      // Every template of the dialect reads the corpus (thinking off: a thought may still open the answer where the template allows).
      for (const c of texts) out.push({ ...tb, name: c.name, text: c.text, thinking: false, tools: FILE_TOOLS });
      // The reference template reads the corpus twice more: at most one call; thoughts not extracted.
      if (t === templates[0]) {
        for (const c of texts)
          out.push({
            ...tb,
            name: `${c.name} (one call)`,
            text: c.text,
            thinking: false,
            tools: FILE_TOOLS,
            parallel: false,
          });
        for (const c of texts)
          out.push({
            ...tb,
            name: `${c.name} (no reasoning)`,
            text: c.text,
            thinking: false,
            tools: FILE_TOOLS,
            reasoningFormat: "none",
          });
      }
      // What the template itself writes, with and without text and a thought.
      for (const [i, calls] of CALLS.entries()) {
        const variants: Array<{ label: string; content?: string; reasoning?: string }> = [
          { label: "" },
          { label: " + text", content: "I'll do that." },
          ...(t.thinking || t.reasoningAsContentBlock
            ? [{ label: " + thought", reasoning: "Let me think.", content: "Done thinking." }]
            : []),
        ];
        for (const v of variants) {
          let turn;
          try {
            turn = renderAssistantToolCalls(dialect as TemplateDialect, calls, {
              template: t.file,
              content: v.content,
              reasoning: v.reasoning,
            });
          } catch {
            continue; // a template that cannot render this turn (see chat-templates.test.ts)
          }
          out.push({
            ...tb,
            name: `render ${t.file} calls #${i}${v.label}`,
            text: turn.assistant,
            tools: toolsFor(calls),
            thinking: v.reasoning !== undefined,
          });
        }
      }
    }
  }
  return out;
}
