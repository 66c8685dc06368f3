// The Lark export (llguidance's syntax) without llguidance (test/no-model/peer-exports runs llguidance's
// own engine on it when `npm run pyenv` has installed it). Checked here: the text keeps to the
// subset of llguidance's Lark we mean to write
// (lowercase rules, `start`, JSON strings, one-character /[…]/ classes with \u{…} escapes, <[id]>
// tokens), and it means the same language: an independent reader below turns the Lark text back
// into GBNF, llama.cpp's grammar engine (node-llama-cpp) parses that, and it accepts exactly the
// texts our native matcher accepts — whole calls, cut calls, undeclared names, junk.
import { beforeAll, describe, expect, it } from "vitest";
import {
  buildToolGrammar,
  compileGrammar,
  dialects,
  getDialect,
  literal,
  seq,
  toLark,
  token,
  type Grammar,
} from "../../src/index.js";
import { buildCorpus } from "../support/corpus.js";
import {
  DIALECT_TEMPLATES,
  renderAssistantToolCalls,
  type Call,
  type TemplateDialect,
} from "../support/template-fixtures.js";
import { writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";
import { FILE_TOOLS, TYPED_TOOLS } from "../support/tools.js";
import { qwen3 } from "../support/vocabs.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
let llama: any, LlamaGrammar: any;
beforeAll(async () => {
  const nlc = await import("node-llama-cpp");
  llama = await nlc.getLlama({ gpu: false, build: "never", logLevel: "error" as never });
  LlamaGrammar = nlc.LlamaGrammar;
});

// ---- an independent reader of the Lark we write, printing GBNF -----------------------------------

const LEX =
  /\s*(?:([a-z][a-z0-9-]*)|("(?:[^"\\]|\\.)*")|\/\[((?:[^\]\\]|\\.)*)\]\/|(<\[\d+\]>)|(\{\d+(?:,\d*)?\}|[()|*+?]))/y;

const cpEscape = (c: number) => `\\U${c.toString(16).padStart(8, "0")}`;

function larkToGbnf(lark: string): string {
  const lines = lark.trim().split("\n");
  expect(lines[0]).toMatch(/^start: /);
  return (
    lines
      .map((line) => {
        const m = /^([a-z][a-z0-9-]*): (.*)$/.exec(line);
        if (!m) throw new Error(`not a lowercase Lark rule: ${line.slice(0, 80)}`);
        const name = m[1] === "start" ? "root" : `l-${m[1]}`;
        let out = "",
          at = 0;
        const body = m[2]!;
        while (at < body.length) {
          LEX.lastIndex = at;
          const t = LEX.exec(body);
          if (!t) throw new Error(`cannot read ${JSON.stringify(body.slice(at, at + 30))} in rule ${m[1]}`);
          at = LEX.lastIndex;
          // Only the rule named "start" is GBNF's root (a name such as text-tool-call-start is not).
          if (t[1]) out += t[1] === "start" ? " root" : ` l-${t[1]}`;
          else if (t[2]) {
            const s = JSON.parse(t[2]) as string;
            out += ` "${Array.from(s, (c) => cpEscape(c.codePointAt(0)!)).join("")}"`;
          } else if (t[3] !== undefined) {
            // Members: \u{hex} or a plain character; `a-b` ranges.
            const members = [...t[3].matchAll(/\\u\{([0-9a-f]+)\}|(-)|([^\\])/g)].map((x) =>
              x[2] ? "-" : x[1] ? parseInt(x[1], 16) : x[3]!.codePointAt(0)!,
            );
            let cls = "";
            for (let i = 0; i < members.length; i++) {
              const lo = members[i]!;
              if (lo === "-") throw new Error(`dangling '-' in class ${t[3]}`);
              if (members[i + 1] === "-") {
                cls += `${cpEscape(lo)}-${cpEscape(members[i + 2] as number)}`;
                i += 2;
              } else cls += cpEscape(lo);
            }
            out += ` [${cls}]`;
          } else if (t[4]) out += ` ${t[4]}`;
          else out += t[5] === "(" || t[5] === "|" ? ` ${t[5]}` : t[5];
        }
        return `${name} ::=${out}`;
      })
      .join("\n") + "\n"
  );
}

/** Ours: the text as one string, then whether the grammar could stop there. */
function oursAccepts(g: Grammar, text: string): boolean {
  const m = compileGrammar(g, qwen3()).createMatcher();
  return m.acceptString(text) && m.isComplete();
}

describe("toLark: llguidance's syntax", () => {
  it("writes lowercase rules from start, JSON strings, one-character classes and <[id]> tokens", () => {
    const lark = toLark(
      { root: seq(literal('é"\n'), token(151657), { type: "charClass", ranges: [[0x22, 0x22]], negated: true }) },
      undefined,
    );
    const lines = lark.trim().split("\n");
    expect(lines[0]).toBe('start: "é\\"\\n" <[151657]> /[\\u{0}-\\u{21}\\u{23}-\\u{d7ff}\\u{e000}-\\u{10ffff}]/');
    for (const line of lines) expect(line).toMatch(/^[a-z][a-z0-9-]*: /);
  });

  it("folds empty strings into optional groups (Lark has no empty literal)", () => {
    const lark = toLark({ root: seq(literal("a"), { type: "text", exclude: "ab" }) });
    expect(lark).not.toContain('""');
    expect(lark).toMatch(/\)\?/);
  });
});

/** Calls of each tool set: every declared tool, its arguments full and minimal, with a value to escape. */
const CALLS: Record<"file tools" | "typed tools", Call[]> = {
  "file tools": [
    { name: "read", arguments: { path: "/tmp/a.txt" } },
    { name: "write", arguments: { path: "b", content: 'say "hi" {x}\n' } },
    { name: "edit", arguments: { path: "c", old_string: "<", new_string: "" } },
  ],
  "typed tools": [
    {
      name: "configure",
      arguments: {
        label: "go",
        count: 3,
        ratio: 0.5,
        enabled: true,
        options: { a: 1 },
        tags: ["x", "y"],
        mode: "fast",
      },
    },
    { name: "configure", arguments: { label: "" } },
  ],
};

/**
 * The dialect's own answers for these tools, as its real chat template writes them: one turn per
 * call, whole and cut short (a harmony answer is messages, so plain text is never one: its final
 * message stands for an answer without calls), and the reasoning option that reads them.
 */
function templateTurns(dialect: string, calls: Call[]): { reasoning: boolean | "forced-open"; texts: string[] } {
  const spec = getDialect(dialect);
  // A dialect whose model writes another form than its template (qwen2.5-coder): its own form.
  const turns =
    dialect in DIALECT_TEMPLATES
      ? calls.map((c) => renderAssistantToolCalls(dialect as TemplateDialect, [c]))
      : calls.map((c) => ({
          assistant: writeOutput(spec, [
            writeCall(
              spec,
              c.name,
              Object.entries(c.arguments).map(([k, v]) => [k, JSON.stringify(v)]),
            ),
          ]),
          parseReasoning: false as const,
        }));
  const texts = turns.flatMap((t) => [t.assistant, t.assistant.slice(0, Math.floor(t.assistant.length * 0.7))]);
  if (spec.call.kind === "harmony")
    texts.push(`${spec.call.channel}${spec.call.channels.final}${spec.call.message}Done.${spec.call.finalEnd}`);
  return { reasoning: turns[0]!.parseReasoning, texts };
}

describe.each(dialects)("toLark → independent reader → GBNF → llama.cpp: %s", (dialect) => {
  for (const [label, tools] of [
    ["file tools", FILE_TOOLS],
    ["typed tools", TYPED_TOOLS],
  ] as const) {
    it(`${label}: accepts exactly what our matcher accepts`, () => {
      const own = templateTurns(dialect, CALLS[label]);
      // The reasoning the template's turns are read with: MiniMax's prompt opens the thought.
      const g = buildToolGrammar({
        dialect,
        tools,
        toolChoice: "auto",
        parallelToolCalls: true,
        maxValueLength: 40,
        reasoning: own.reasoning,
      });
      const gbnf = larkToGbnf(toLark(g));
      const engine = new LlamaGrammar(llama, { grammar: gbnf });
      // Every dialect's outputs: this dialect's are calls (whole, cut, undeclared), the others' mostly content.
      const texts = [...own.texts, ...buildCorpus(80, 11).map((c) => c.text)];
      const wrong: string[] = [];
      let accepted = 0,
        ownAccepted = 0;
      for (const text of texts) {
        const ours = oursAccepts(g, text);
        if (ours) accepted++;
        if (ours && own.texts.includes(text)) ownAccepted++;
        if (engine._testText(text) !== ours)
          wrong.push(`${ours ? "ours only" : "llama.cpp only"}: ${JSON.stringify(text)}`);
      }
      expect(wrong).toEqual([]);
      expect(
        ownAccepted,
        "some of the dialect's own answers must be accepted, or the comparison says little",
      ).toBeGreaterThan(0);
      expect(texts.length - accepted).toBeGreaterThan(0);
    });
  }
});
