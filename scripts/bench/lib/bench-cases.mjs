// Mask benchmark cases: grammars built with our IR builders plus the text a model would emit.
// `lib` is the built package (dist/index.js) so the scripts exercise what users get.
import { callObjectSchema, functionTools, readClientToolFixtures } from "../../corpus/client-tools.mjs";
import { dumps, fakeInstance } from "./schema-instance.mjs";

/**
 * Qwen3-Coder XML tool calls: one or more calls separated by "\n", exact </parameter> terminator.
 * <tool_call> is an added but non-special token in Qwen3's tokenizer.json, so both engines treat it
 * as text: the tags are literals (the single token 151657 spells them). tokenTags: use `token`
 * nodes instead, for vocabularies where the tags are control tokens.
 */
export function xmlToolGrammar(lib, tools, { tokenTags = false } = {}) {
  const { seq, alt, literal, until, perm, star, token } = lib;
  const tag = (t) => (tokenTags ? token(t) : literal(t));
  const param = (name) => seq(literal(`<parameter=${name}>\n`), until("</parameter>"), literal("\n"));
  const fn = (t) =>
    seq(
      literal(`<function=${t.name}>\n`),
      perm(t.params.map((p) => ({ node: param(p.name), required: p.required }))),
      literal("</function>\n"),
    );
  const call = seq(tag("<tool_call>"), literal("\n"), alt(...tools.map(fn)), tag("</tool_call>"));
  return { root: seq(call, star(seq(literal("\n"), call))) };
}

export function xmlCall(name, args) {
  const params = Object.entries(args)
    .map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`)
    .join("");
  return `<tool_call>\n<function=${name}>\n${params}</function>\n</tool_call>`;
}

export const FILE_TOOLS = [
  { name: "read", params: [{ name: "path", required: true }] },
  {
    name: "write",
    params: [
      { name: "path", required: true },
      { name: "content", required: true },
    ],
  },
  {
    name: "edit",
    params: [
      { name: "path", required: true },
      { name: "old_string", required: true },
      { name: "new_string", required: true },
    ],
  },
];

/** Deterministic TypeScript-ish source with <, >, </ and quotes, cut to exactly `n` characters. */
export function codeSnippet(n) {
  const lines = [
    'import { readFile } from "node:fs/promises";',
    "",
    "export interface Entry<T> { key: string; value: T; tags?: string[] }",
    "",
    '/** Groups entries by tag; untagged entries go under "<none>". */',
    "export function groupByTag<T>(entries: Array<Entry<T>>): Map<string, Entry<T>[]> {",
    "  const out = new Map<string, Entry<T>[]>();",
    "  for (const e of entries) {",
    '    for (const tag of e.tags ?? ["<none>"]) {',
    "      const list = out.get(tag) ?? [];",
    "      list.push(e);",
    "      out.set(tag, list);",
    "    }",
    "  }",
    "  return out;",
    "}",
    "",
    "export async function loadEntries(path: string): Promise<Entry<number>[]> {",
    '  const text = await readFile(path, "utf8");',
    '  return text.split("\\n").filter((l) => l.trim() !== "").map((line, i) => {',
    '    const [key, value] = line.split("=");',
    "    if (value === undefined) throw new Error(`line ${i + 1}: expected key=value, got <${line}>`);",
    '    return { key: key!.trim(), value: Number(value), tags: i % 3 === 0 ? ["first"] : undefined };',
    "  });",
    "}",
    "",
    "export function render(groups: Map<string, Entry<unknown>[]>): string {",
    '  let html = "<ul>\\n";',
    "  for (const [tag, list] of groups) {",
    "    html += `  <li><b>${tag}</b> (${list.length})</li>\\n`;",
    '    if (list.length > 10 && tag !== "<none>") html += "  <li>...</li>\\n";',
    "  }",
    '  return html + "</ul>\\n";',
    "}",
    "",
  ];
  let s = "";
  for (let i = 0; s.length < n; i++) s += lines[i % lines.length] + "\n";
  return s.slice(0, n);
}

const VERBS = ["get", "list", "create", "update", "delete", "search", "fetch", "send", "run", "check"];
const NOUNS = ["weather", "file", "issue", "user", "order"];
const PARAM_POOL = [
  "id",
  "query",
  "path",
  "limit",
  "city",
  "units",
  "body",
  "title",
  "email",
  "force",
  "branch",
  "timeout",
];

/** 50 tools, 1-4 parameters each; the first parameter is required, then alternating. */
export function fiftyTools() {
  const tools = [];
  for (let i = 0; i < 50; i++) {
    const name = `${VERBS[i % VERBS.length]}_${NOUNS[Math.floor(i / VERBS.length)]}`;
    const count = 1 + ((i * 7) % 4);
    const params = [];
    for (let k = 0; k < count; k++)
      params.push({ name: PARAM_POOL[(i + k * 5) % PARAM_POOL.length], required: k === 0 || k % 2 === 1 });
    tools.push({ name, params });
  }
  return tools;
}

export const JSON_ARGS_SCHEMA = {
  type: "object",
  properties: { path: { type: "string" }, content: { type: "string" } },
  required: ["path", "content"],
  additionalProperties: false,
};

/** The benchmark cases: { name, grammar (IR), text (the walk), xgrammarJsonSchema? }. */
export function buildCases(lib) {
  const short = [
    xmlCall("read", { path: "/etc/hosts" }),
    xmlCall("edit", {
      path: "src/app.ts",
      old_string: "const port = 3000;",
      new_string: "const port = Number(process.env.PORT ?? 3000);",
    }),
    xmlCall("write", { path: "notes/todo.md", content: "- [ ] fix </param> parsing\n- [x] add tests" }),
    xmlCall("read", { path: "package.json" }),
    xmlCall("edit", { path: "README.md", new_string: "## Usage\n\n```sh\nnpm start\n```", old_string: "## Usage" }),
  ].join("\n");

  const tools50 = fiftyTools();
  const argsFor = (t, i) =>
    Object.fromEntries(
      t.params.filter((p, k) => p.required || k % 2 === 0).map((p) => [p.name, `${p.name}-value-${i}`]),
    );
  const picks = [3, 17, 28, 41, 49].map((i) => tools50[i]);
  const fiftyWalk = picks.map((t, i) => xmlCall(t.name, argsFor(t, i))).join("\n");

  const jsonText = JSON.stringify({ path: "src/group.ts", content: codeSnippet(600) })
    .replace('","content":"', '", "content": "')
    .replace('{"path":"', '{"path": "');

  return [
    { name: "xml-short", grammar: xmlToolGrammar(lib, FILE_TOOLS), text: short },
    {
      name: "xml-long",
      grammar: xmlToolGrammar(lib, FILE_TOOLS),
      text: xmlCall("write", { path: "src/group.ts", content: codeSnippet(2000) }),
    },
    {
      name: "json-args",
      grammar: { root: lib.jsonSchema(JSON_ARGS_SCHEMA) },
      text: jsonText,
      xgrammarJsonSchema: JSON_ARGS_SCHEMA,
    },
    { name: "xml-50-tools", grammar: xmlToolGrammar(lib, tools50), text: fiftyWalk },
  ];
}

/** How many tools the "500-tools" case has. */
export const MANY_TOOLS = 500;

/**
 * Keywords a native peer's JSON-schema compiler refuses: llguidance 1.9.1 raises "Unimplemented
 * keys: ["propertyNames"]" (on Claude Code 2.1.197's TaskCreate and TaskUpdate and Playwright MCP's
 * browser_drop). The tool cases leave such tools out for every engine alike (each case's
 * `leftOut` names them), so that every peer runs on the same tools.
 */
export const PEER_REFUSED_KEYWORDS = ["propertyNames"];
const peersTake = (t) => !PEER_REFUSED_KEYWORDS.some((k) => JSON.stringify(t.function.parameters).includes(`"${k}"`));

/**
 * The captured client tools (test/fixtures/client-tools) but PEER_REFUSED_KEYWORDS', each name once
 * (the first fixture's, by file name), repeated under new names (`<name>_<round>`) until there are `n`.
 */
export function manyTools(n = MANY_TOOLS) {
  const seen = new Map();
  for (const [, fixture] of readClientToolFixtures())
    for (const t of functionTools(fixture).filter(peersTake))
      if (!seen.has(t.function.name)) seen.set(t.function.name, t);
  const base = [...seen.values()];
  return Array.from({ length: n }, (_, i) => {
    const t = base[i % base.length];
    const round = Math.floor(i / base.length);
    return {
      type: "function",
      function: { ...t.function, name: round ? `${t.function.name}_${round}` : t.function.name },
    };
  });
}

/** The tool whose parameters' JSON text is the longest (the last such one). */
const largestTool = (tools) =>
  tools.reduce((a, b) =>
    JSON.stringify(b.function.parameters).length >= JSON.stringify(a.function.parameters).length ? b : a,
  );

/**
 * A case over function tools: the JSON schema of one call object (callObjectSchema), which every
 * engine takes (ours through its JSON-schema front end, jsonSchema; each native peer through its
 * own: peerSchema), walked by a call to the set's
 * largest tool with json-schema-faker's instance of its parameters (json.dumps spacing).
 */
function callObjectCase(lib, name, all, peerSkip = {}) {
  const tools = all.filter(peersTake);
  const leftOut = all.filter((t) => !peersTake(t)).map((t) => t.function.name);
  const schema = callObjectSchema(tools);
  const tool = largestTool(tools);
  const args = fakeInstance(tool.function.parameters);
  if (args === undefined)
    throw new Error(`${name}: json-schema-faker wrote no valid arguments for ${tool.function.name}`);
  return {
    name,
    grammar: { root: lib.jsonSchema(schema) },
    text: dumps({ name: tool.function.name, arguments: args }),
    xgrammarJsonSchema: schema,
    peerSchema: true,
    peerSkip,
    tools: tools.length,
    leftOut,
    walkTool: tool.function.name,
  };
}

/**
 * The set --smallest runs: opencode's 10 tools. The set with the fewest (Codex's 8 for gpt-5.5) took
 * outlines-core 32 s to compile (load 14 on 2 cores; opencode's: 3.9 s at load 10), and toEbnf
 * cannot export its 10-member any-order set for the XGrammar WASM row.
 */
export const SMALLEST_SET = "opencode-1.18.33";

/** Peers left out of 500-tools, and why. */
const MANY_TOOLS_SKIP = {
  "outlines-core":
    "left out: outlines-core 0.2.14's compile of 500-tools was killed by the kernel's OOM killer at 12.5 GB resident (2026-12-05, a 24 GB machine shared with other work)",
};
/** Peers left out of the tool case under --smallest, and why. */
const SMALLEST_SKIP = {
  "outlines-core": `left out under --smallest: its regex compile of ${SMALLEST_SET}'s schema took 3.9-25.7 s here (load 10-15, 2 cores)`,
};

/**
 * The tool cases: "500-tools" (manyTools) and "corpus/<fixture>" for each captured client tool set
 * (under `smallest`: SMALLEST_SET alone, and no 500-tools).
 */
export function toolCases(lib, { smallest = false } = {}) {
  const sets = readClientToolFixtures().map(([id, f]) => [id, functionTools(f)]);
  const corpus = smallest ? sets.filter(([id]) => id === SMALLEST_SET) : sets;
  return [
    ...(smallest ? [] : [callObjectCase(lib, `${MANY_TOOLS}-tools`, manyTools(), MANY_TOOLS_SKIP)]),
    ...corpus.map(([id, tools]) => callObjectCase(lib, `corpus/${id}`, tools, smallest ? SMALLEST_SKIP : {})),
  ];
}
