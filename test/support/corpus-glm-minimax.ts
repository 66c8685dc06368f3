// Corpus outputs for the GLM-4.5 and MiniMax-M2 dialects: hand-written adversarial cases and
// generated calls (both GLM spellings, sections with several invokes), whole and cut.
import { rng } from "./tokenize.js";

export type GlmMinimaxDialect = "glm-4.5" | "minimax-m2";
export interface GlmMinimaxCase {
  name: string;
  dialect: GlmMinimaxDialect;
  text: string;
}

// Pieces of the two wire formats (minus the value closes themselves), plus general trouble.
const TRICKY = [
  "",
  "<",
  "</",
  "<tool_call>",
  "</tool_call",
  "<arg_key>",
  "</arg_key>",
  "<arg_value>",
  "</arg_val",
  "\n",
  "<think>",
  "</think>",
  "<minimax:tool_call>",
  "</minimax:tool_call",
  '<invoke name="',
  '">',
  "</invoke>",
  '<parameter name="',
  "</param",
  "é✓😀",
  "{",
  '"',
  " ",
];

export function glmCall(name: string, params: Array<[string, string]>, newlines: boolean): string {
  const nl = newlines ? "\n" : "";
  return `<tool_call>${name}${nl}${params.map(([k, v]) => `<arg_key>${k}</arg_key>${nl}<arg_value>${v}</arg_value>${nl}`).join("")}</tool_call>`;
}

export function minimaxInvoke(name: string, params: Array<[string, string]>): string {
  return `<invoke name="${name}">\n${params.map(([k, v]) => `<parameter name="${k}">${v}</parameter>\n`).join("")}</invoke>\n`;
}

export function minimaxSection(invokes: string[]): string {
  return `<minimax:tool_call>\n${invokes.join("")}</minimax:tool_call>`;
}

export function glmMinimaxCorpus(count: number, seed = 45): GlmMinimaxCase[] {
  const r = rng(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)]!;
  const junk = (n: number) => Array.from({ length: n }, () => pick(TRICKY)).join("");
  const value = () => pick([junk(3), "plain", "/tmp/x.c", "42", '{"a": 1}', "line1\nline2", junk(6), ""]);
  const out: GlmMinimaxCase[] = [
    {
      name: "glm undeclared name sharing a prefix",
      dialect: "glm-4.5",
      text: `a ${glmCall("read_file", [["path", "x"]], true)} b`,
    },
    { name: "glm name running into text", dialect: "glm-4.5", text: "<tool_call>readme please</tool_call>" },
    {
      name: "glm 4.7 call, no newlines",
      dialect: "glm-4.5",
      text: glmCall(
        "write",
        [
          ["path", "a"],
          ["content", "<tool_call>x</tool_call>"],
        ],
        false,
      ),
    },
    { name: "glm cut in the name's follower", dialect: "glm-4.5", text: "x<tool_call>read\n<arg_k" },
    { name: "glm cut between key and value", dialect: "glm-4.5", text: "<tool_call>read\n<arg_key>path</arg_key>\n" },
    {
      name: "glm value opening missing",
      dialect: "glm-4.5",
      text: "<tool_call>read<arg_key>path</arg_key>oops</arg_value></tool_call>after",
    },
    {
      name: "glm 4.6 thought with its lead",
      dialect: "glm-4.5",
      text: `\n<think>maybe ${glmCall("read", [["path", "q"]], true)}</think>\n${glmCall("read", [["path", "a"]], true)}`,
    },
    { name: "glm whitespace before an undeclared call", dialect: "glm-4.5", text: "\n\n<tool_call>nope\n</tool_call>" },
    {
      name: "minimax two invokes",
      dialect: "minimax-m2",
      text: `ok\n${minimaxSection([
        minimaxInvoke("read", [["path", "a"]]),
        minimaxInvoke("write", [
          ["path", "b"],
          ["content", "</invoke>\n"],
        ]),
      ])}`,
    },
    {
      name: "minimax section never closed",
      dialect: "minimax-m2",
      text: `<minimax:tool_call>\n${minimaxInvoke("read", [["path", "a"]])}`,
    },
    { name: "minimax section cut after its gap", dialect: "minimax-m2", text: "hi <minimax:tool_call>\n" },
    {
      name: "minimax undeclared invoke",
      dialect: "minimax-m2",
      text: minimaxSection([minimaxInvoke("get_weather", [["city", "Paris"]])]),
    },
    {
      name: "minimax text inside the section",
      dialect: "minimax-m2",
      text: "<minimax:tool_call>\nhello</minimax:tool_call>",
    },
  ];
  while (out.length < count) {
    const dialect = pick(["glm-4.5", "minimax-m2"] as const);
    const calls: Array<[string, Array<[string, string]>]> = [];
    for (let n = 1 + Math.floor(r() * 3); n > 0; n--) {
      const name = pick(["read", "write", "edit", "nope", "read_file"]);
      const params: Array<[string, string]> =
        name === "write"
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
            : [["path", value()]];
      if (r() < 0.5) params.reverse();
      calls.push([name, params]);
    }
    let text = r() < 0.5 ? junk(Math.floor(r() * 3)) : "";
    if (dialect === "glm-4.5") {
      const newlines = r() < 0.5;
      text += calls
        .map(([name, params]) => glmCall(name, params, newlines) + (r() < 0.3 ? junk(2) : newlines ? "\n" : ""))
        .join("");
    } else {
      text += minimaxSection(calls.map(([name, params]) => minimaxInvoke(name, params)));
      if (r() < 0.3) text += junk(2);
    }
    if (r() < 0.35) text = text.slice(0, Math.floor(r() * text.length));
    out.push({ name: `generated ${dialect} #${out.length}`, dialect, text });
  }
  return out;
}
