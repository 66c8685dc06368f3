// Mutation fuzzing of the stream parser, per dialect: outputs written from the dialect's own
// definition (scripts/lib/dialect-writer.mjs) with random tools, arguments and glue, then mutated
// (byte flips, deletions, truncations, duplicated markers, control characters, deep nesting, huge
// values, opener floods, splices, numbers a double cannot hold), and, first, now and then by one
// verdict class (scripts/lib/verdict-mutations.mjs: a closing delimiter dropped, a key given
// twice, several calls where one is allowed, each call of it settled: a call, an incomplete or
// a dropped entry, never content). Each input is parsed whole and fed at random
// splits: no exception, the same result and concatenated events for every split, events (and the
// OpenAI deltas generateStream makes of them) that tell what the result says, and (sampled) the grammar accepting what the parser calls complete,
// call by call (scripts/lib/call-verdicts.mjs), and reads that grow linearly with the input.
// Plain ESM: test/no-model/fuzz-parser.test.ts runs it on src/, scripts/bench/fuzz.mjs on dist/
// (the library's parts are passed in as `lib`).
import { completeBeyondGrammar } from "./call-verdicts.mjs";
import { writeCall, writeOutput } from "./dialect-writer.mjs";
import { deltasDisagree, eventsDisagree, runChunks } from "./parser-runs.mjs";
import { rng } from "./rng.mjs";
import { closingPlaces, dropAt, duplicatePlaces, insertAt, severalCalls } from "./verdict-mutations.mjs";

export { rng };

/** The seed of input `index` of `dialect` under run seed `seed`: each input is reproducible alone. */
export function inputSeed(seed, dialect, index) {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (const ch of `${dialect}#${index}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h;
}

const fn = (name, properties, required = Object.keys(properties)) => ({
  type: "function",
  function: { name, parameters: { type: "object", properties, required } },
});
/** The tools outputs call: strings, numbers, free objects, arrays, enums, booleans; required and optional. */
export const FUZZ_TOOLS = [
  fn("read", { path: { type: "string" } }),
  fn("write", { path: { type: "string" }, content: { type: "string" } }),
  fn(
    "calc",
    {
      x: { type: "number" },
      n: { type: "integer" },
      o: { type: "object" },
      l: { type: "array", items: { type: "number" } },
      b: { type: "boolean" },
      m: { type: "string", enum: ["fast", "safe"] },
    },
    ["x"],
  ),
  fn(
    "get_current_weather_in_a_city_by_its_name",
    { city: { type: "string", maxLength: 12 }, days: { type: "integer" } },
    ["city"],
  ),
];

// Numbers a schema's type admits first (the first 12 are integers), then ones a double cannot hold, then not numbers.
const NUMBERS = [
  "0",
  "1",
  "42",
  "-7",
  "9007199254740993",
  "123456789012345678901234567890",
  "-0",
  "100",
  "7",
  "2",
  "13",
  "99",
  "1.5",
  "1.0",
  "0.1",
  "1e5",
  "1E+5",
  "2.5e-3",
  "5e-999",
  "1e999",
  "-1e400",
  "1" + "0".repeat(320),
  "01",
  "1.",
  ".5",
  "+1",
  "NaN",
  "Infinity",
  "0x10",
];
const GOOD_NUMBERS = 19;
const SAFE_STRINGS = ["", "a", "plain text", "/tmp/x.c", "line1\nline2", "é✓😀", "中文", " ", "x y", "42"];
const STRINGS = [
  ...SAFE_STRINGS,
  '"',
  "\\",
  "\\n",
  "{",
  "}",
  "[",
  "]",
  "<",
  ">",
  "</",
  "\u0000",
  "\t",
  "\u2028",
  "\ud800",
  "'",
  "True",
  "null",
  ":",
  ",",
];
const JUNK = [
  "{",
  "}",
  "[",
  "]",
  '"',
  "\\",
  ",",
  ":",
  "<",
  ">",
  "|",
  "/",
  "=",
  "\n",
  " ",
  "\t",
  "a",
  "0",
  "-",
  "e",
  ".",
  "'",
  "\u0000",
  "\u001f",
  "\u007f",
  "é",
  "😀",
  "\ud800",
  "｜",
  "▁",
];

/** Every marker string of a dialect's definition (glue, closes, sections, thoughts, harmony's tokens). */
export function markersOf(spec) {
  const out = new Set();
  const walk = (v, key) => {
    if (typeof v === "string") {
      if (v && key !== "name" && key !== "description") out.add(v);
    } else if (Array.isArray(v)) v.forEach((x) => walk(x, key));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(spec, "");
  return [...out];
}

/** The text that opens the dialect's call structure. */
function openerOf(spec) {
  const f = spec.call;
  if (spec.section) return spec.section.open;
  if (f.kind === "harmony") return `${f.channel}${f.channels.calls}${f.open[0]}`;
  return f.open.find((p) => typeof p === "string") ?? "{";
}

/**
 * What stands between calls that open the answer (openingCalls): JSON whitespace, a comma among it;
 * and one that is no separator (STRAY_FENCE): a fence line with no call in it, which leaves every
 * call's head, so the rest of the answer is content (docs/dialects.md, "What stays content").
 */
const STRAY_FENCE = "\n```\n";
const SEPARATORS = ["\n", "\n\n", ",\n", ", ", "", " ", STRAY_FENCE];

/** Values a key given twice carries in its copy (undefined: the same value again). */
const COPIES = [undefined, undefined, '"rm -rf /"', "1", "null", "{}", "[1, 2]", "'x'"];

/**
 * A random generated output and its options, then mutated: what one fuzz input is. `verdicts`:
 * whether the verdict classes may apply (drawn from a generator of their own, so the rest of an
 * input, and the inputs before they were added, stay as they were).
 */
export function makeInput(spec, seed, { maxSize = 20_000, verdicts = true, fencedSpec } = {}) {
  const r = rng(seed);
  const int = (n) => Math.floor(r() * n);
  const pick = (a) => a[int(a.length)];
  const markers = markersOf(spec);
  // Half the outputs are what a model following the grammar writes (then mutated or not).
  const clean = r() < 0.5;
  const str = () =>
    Array.from({ length: int(4) }, () =>
      clean ? pick(SAFE_STRINGS) : pick([...STRINGS, ...markers, pick(JUNK)]),
    ).join("");
  const number = (integer) => (clean ? pick(NUMBERS.slice(0, integer ? 12 : GOOD_NUMBERS)) : pick(NUMBERS));
  const python = spec.call.kind === "xml" && spec.call.pythonLiterals;

  /** A free JSON (or Python) value of depth ≤ 3, as text. */
  const free = (depth, py) => {
    const k = int(depth > 0 ? 7 : 4);
    const q = (s) =>
      py ? `'${s.replace(/[\\'\n\r]/g, (c) => ({ "\n": "\\n", "\r": "\\r" })[c] ?? `\\${c}`)}'` : JSON.stringify(s);
    if (k === 0) return number(false);
    if (k === 1) return q(str());
    if (k === 2) return pick(py ? ["True", "False", "None"] : ["true", "false", "null"]);
    if (k === 3) return number(true);
    if (k <= 5) return `[${Array.from({ length: int(3) }, () => free(depth - 1, py)).join(", ")}]`;
    return `{${Array.from({ length: int(3) }, () => `${q(pick(["a", "b", "k", "__proto__", ""]))}: ${free(depth - 1, py)}`).join(", ")}}`;
  };
  /** A wire value for `schema`: mostly of its type, now and then of another. */
  const value = (schema) => {
    const type =
      !clean && r() < 0.15 ? pick(["string", "number", "integer", "object", "array", "boolean"]) : schema.type;
    if (schema.enum && (clean || r() < 0.8)) {
      const v = clean || r() < 0.8 ? pick(schema.enum) : "turbo";
      return [JSON.stringify(v), v];
    }
    if (type === "string") {
      const s = r() < 0.1 ? str().repeat(1 + int(20)) : str();
      return [JSON.stringify(s), s];
    }
    if (type === "number" || type === "integer") {
      const n = number(type === "integer");
      return [n, n];
    }
    if (type === "boolean") {
      const b = pick(["true", "false"]);
      return [b, r() < 0.3 ? pick(["True", "False"]) : b];
    }
    if (type === "array") {
      const a = `[${Array.from({ length: int(4) }, () => number(false)).join(", ")}]`;
      return [a, a];
    }
    const o = free(3, false);
    return [o, python && r() < 0.5 ? free(3, true) : o];
  };
  const tools = r() < 0.85 ? FUZZ_TOOLS : FUZZ_TOOLS.filter(() => r() < 0.5);
  const named = tools.length ? { type: "function", function: { name: pick(tools).function.name } } : "auto";
  const choices = tools.length
    ? ["auto", "auto", "auto", "auto", "auto", "required", "required", "none", named, named]
    : ["auto"];
  const reasoning = spec.reasoning ? pick([false, true, true, "forced-open"]) : false;
  const options = {
    dialect: spec.name,
    tools,
    toolChoice: pick(choices),
    parallelToolCalls: r() < 0.8,
    reasoning,
    ...(r() < 0.2 ? { maxCallLength: 1 + int(r() < 0.5 ? 60 : 400) } : {}),
    ...(r() < 0.15 ? { maxValueLength: int(16) } : {}),
    ...(r() < 0.2 ? { finishReason: "length" } : {}),
  };

  const names = []; // the tool each call names
  const callArgs = []; // and its arguments
  const calls = Array.from({ length: r() < 0.15 ? 0 : 1 + int(3) }, (_, index) => {
    const t =
      (clean || r() < 0.9) && tools.length
        ? pick(tools).function
        : { name: pick(["nope", "rea", "read2", "READ", ""]), parameters: { properties: { x: { type: "string" } } } };
    names.push(t.name);
    const required = new Set(t.parameters.required ?? []);
    const props = Object.entries(t.parameters.properties ?? {});
    const args = props.filter(([k]) => (clean && required.has(k)) || r() < 0.6).map(([k, s]) => [k, ...value(s)]);
    if (!clean && r() < 0.1) args.push([pick(["extra", "toString", "x y", ""]), ...value({ type: "string" })]);
    if (r() < 0.3) args.reverse();
    callArgs.push(args);
    const id =
      r() < 0.9 ? Array.from({ length: 9 }, () => pick([..."abcXYZ0189"])).join("") : pick(["", "a-b", "abcdefghij"]);
    return writeCall(spec, t.name, args, { index, take: () => r() < 0.7, id });
  });
  // Calls that open the answer (openingCalls): forms, separators, now and then an array of calls
  // (content), and for a dialect that takes them as an option (fencedSpec: hermes with fencedCalls)
  // its first calls in those forms; drawn from a generator of their own, so the rest of an input
  // stays what it was.
  const f = rng(seed ^ 0x68e31da4);
  const fPick = (a) => a[Math.floor(f() * a.length)];
  // (fencedCalls refuses reasoning: true: a thought may or may not open the answer)
  const opening = verdicts && fencedSpec && reasoning !== true && f() < 0.4 ? fencedSpec : undefined;
  let strayFence = false; // a call after a stray fence is content: no entry is owed for it
  if (opening) {
    options.fencedCalls = true;
    const k = 1 + Math.floor(f() * calls.length);
    for (let i = 0; i < k && i < calls.length; i++) {
      const separator = i ? fPick(SEPARATORS) : "";
      if (separator === STRAY_FENCE) strayFence = true;
      calls[i] =
        `${separator}${writeCall(opening, names[i], callArgs[i], { form: fPick([0, 1]), take: () => f() < 0.7 })}`;
    }
  }
  const thought = reasoning === true && r() < 0.5 ? str() : undefined;
  const before = r() < 0.4 ? str() : "";
  const after = r() < 0.3 ? str() : "";
  let text = writeOutput(spec, calls, {
    ...(thought === undefined ? {} : { thought }),
    // text before an opening call would make it text
    before: opening && calls.length ? "" : before,
    after,
    separator: fPick(SEPARATORS),
  });
  if (spec.openingCalls && spec.callOpensAnswer && calls.length > 1 && f() < 0.1) text = `[${calls.join(", ")}]`;
  if (reasoning === "forced-open" && spec.reasoning) text = `${str()}${spec.reasoning.close}${text}`;
  if (spec.callOpensAnswer && r() < 0.3) text = pick(["", " ", "\n\n", " ".repeat(40)]) + text;

  // Mutations.
  const at = () => int(text.length + 1);
  const insert = (s, i = at()) => {
    text = text.slice(0, i) + s + text.slice(i);
  };
  const mutations = [
    () => {
      const i = at();
      text = text.slice(0, i) + pick(JUNK) + text.slice(i + 1);
    }, // flip a character
    () => {
      const i = at();
      text = text.slice(0, i) + text.slice(i + 1 + int(8));
    }, // delete a few
    () => {
      text = text.slice(0, at());
    }, // truncate
    () => insert(pick(markers)), // a duplicated marker
    () => insert(String.fromCharCode(int(32))), // a control character
    () => insert(pick(JUNK) + pick(JUNK)), // junk
    () => {
      const k = 1 + int(r() < 0.8 ? 50 : 3000);
      insert(
        pick(["[", "{", '{"a":', "[{", '{"a": [']).repeat(k) + (r() < 0.5 ? pick(["]", "}", "]}"]).repeat(k) : ""),
      );
    }, // deep nesting
    () => {
      const i = at(),
        j = Math.min(text.length, i + 1 + int(200));
      const seg = text.slice(i, j) || "x";
      insert(seg.repeat(1 + int(maxSize / (seg.length * 4))), j);
    }, // a huge value
    () => insert(openerOf(spec).repeat(1 + int(r() < 0.7 ? 20 : maxSize / openerOf(spec).length / 2))), // an opener flood
    () => {
      text += makeSplice();
    }, // two outputs back to back
    () => {
      text = text.replace(/-?\d+(\.\d+)?([eE][+-]?\d+)?/, pick(NUMBERS));
    }, // a number changed
    () => {
      const i = at(),
        j = at();
      if (i < j) text = text.slice(0, i) + text.slice(j) + text.slice(i, j);
    }, // two slices swapped
  ];
  function makeSplice() {
    return writeOutput(spec, calls.slice(0, 1 + int(2)), {});
  }
  let owed; // several calls written, each naming an allowed tool: the entries the parser owes
  if (verdicts) {
    const v = rng(seed ^ 0x2545f491);
    const vPick = (a) => a[Math.floor(v() * a.length)];
    const mode = v();
    if (mode < 0.2) {
      const p = closingPlaces(text, markers);
      if (p.length) text = dropAt(text, vPick(p)); // a closing delimiter dropped
    } else if (mode < 0.4) {
      const p = duplicatePlaces(spec, text, vPick(COPIES));
      if (p.length) text = insertAt(text, vPick(p)); // a key given twice
    } else if (mode < 0.5 && calls.length) {
      // several calls where one is allowed
      const variant = vPick(severalCalls(spec, calls.length > 1 ? calls : [calls[0], calls[0]], writeOutput));
      text = variant.text;
      options.parallelToolCalls = false;
      // Clean calls of allowed tools (a thought the prompt opened would hold them all): each is settled.
      const c = options.toolChoice;
      const allowed = (name) =>
        tools.some((t) => t.function.name === name) &&
        (c === "auto" || c === "required" || (typeof c === "object" && c.function.name === name));
      if (clean && !strayFence && reasoning !== "forced-open" && names.every(allowed)) owed = variant.settles;
    }
  }
  const n = r() < 0.3 ? 0 : 1 + int(r() < 0.7 ? 2 : 6);
  for (let k = 0; k < n; k++) pick(mutations)();
  if (n > 0) owed = undefined;
  if (text.length > maxSize * 2) text = text.slice(0, maxSize * 2);
  return { text, options, r, owed };
}

/** The dialect with fenced and bare opening calls where it takes them as an option (`lib.resolveRequest`), else undefined. */
function fencedSpecOf(lib, spec) {
  if (spec.openingCalls || !lib.resolveRequest) return undefined;
  try {
    return lib.resolveRequest({ dialect: spec, fencedCalls: true }).spec;
  } catch {
    return undefined;
  }
}

/** Split points: 1-character feeding, dense, sparse or a few cuts. */
function splits(r, n) {
  const all = Array.from({ length: Math.max(0, n - 1) }, (_, i) => i + 1);
  const mode = r();
  if (mode < 0.1 && n <= 4000) return all;
  const p = mode < 0.5 ? 0.3 : mode < 0.8 ? 0.03 : Math.min(1, 3 / Math.max(1, n));
  return all.filter(() => r() < p);
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const clip = (s, n = 600) => (s.length > n ? `${s.slice(0, n)}… (${s.length} characters)` : s);

/**
 * One input checked. Returns undefined, or the failure: which check, why, and what to rerun.
 * `lib`: { ToolCallStreamParser, parseToolCalls, buildToolGrammar, grammarAccepts, grammarAcceptor, triggerOf,
 * callTriggerOf, StreamDeltas }; `grammar`: check the grammar accepts what the parser calls complete.
 */
export function checkInput(lib, spec, seed, { maxSize, grammar = false, verdicts = true } = {}) {
  const { text, options, r, owed } = makeInput(spec, seed, { maxSize, verdicts, fencedSpec: fencedSpecOf(lib, spec) });
  const fail = (check, message) => ({ check, message, text, options });
  let whole;
  try {
    whole = lib.parseToolCalls(text, options);
  } catch (e) {
    return fail("no exception (whole)", `${e?.name}: ${e?.message}\n${e?.stack?.split("\n").slice(1, 4).join("\n")}`);
  }
  const settled = whole.toolCalls.length + whole.incomplete.length + whole.dropped.length;
  if (owed !== undefined && settled < owed)
    return fail(
      "every call written is settled",
      `${owed} calls of allowed tools written, ${settled} settled (a call, an incomplete or a dropped entry); content: ${clip(JSON.stringify(whole.content))}`,
    );
  const runs = [[], splits(r, text.length), splits(r, text.length)];
  // The chunked runs take the request resolved once, as generate() gives its parser; the whole run took the options.
  const resolved = lib.resolveRequest ? { ...options, ...lib.resolveRequest(options) } : options;
  let ref;
  for (const cuts of runs) {
    let got;
    try {
      got = runChunks(lib.ToolCallStreamParser, text, resolved, cuts);
    } catch (e) {
      return fail(
        "no exception (chunked)",
        `${e?.name}: ${e?.message} (${cuts.length} cuts)\n${e?.stack?.split("\n").slice(1, 4).join("\n")}`,
      );
    }
    if (!ref) {
      ref = got;
      if (!same(got.result, whole))
        return fail(
          "stream = parseToolCalls",
          `fed whole, the stream parser gives another result:\n${clip(JSON.stringify(got.result))}\nvs\n${clip(JSON.stringify(whole))}`,
        );
      const why = eventsDisagree(got.result, got.events);
      if (why) return fail("events tell the result", why);
      const deltas = deltasDisagree(got.result, got.events, lib.StreamDeltas);
      if (deltas) return fail("deltas tell the result", deltas);
      continue;
    }
    if (!same(got.result, ref.result))
      return fail(
        "chunk invariance (result)",
        `split at ${clip(JSON.stringify(cuts), 200)}:\n${clip(JSON.stringify(got.result))}\nvs whole\n${clip(JSON.stringify(ref.result))}`,
      );
    if (!same(got.events, ref.events))
      return fail(
        "chunk invariance (events)",
        `split at ${clip(JSON.stringify(cuts), 200)}:\n${clip(JSON.stringify(got.events))}\nvs whole\n${clip(JSON.stringify(ref.events))}`,
      );
  }
  if (grammar) {
    // What the parser calls complete, the grammar accepts (text refused as a call is content the
    // grammar never lets a model write; a dropped call is the parser's own limit).
    // Under a choice that requires a call, content before the first call is text the grammar
    // never lets a model write either (the call opens the answer there).
    const refused = [lib.triggerOf(spec), lib.callTriggerOf(spec)].some(
      (x) => (whole.content ?? "").includes(x) || (whole.reasoning ?? "").includes(x),
    );
    const first = ref.events.findIndex((e) => e.type === "tool_call_start");
    const proseFirst = options.toolChoice !== "auto" && ref.events.slice(0, first).some((e) => e.type === "content");
    // An envelope (generic) answer with calls is the object alone: text around it is content only the parser reads.
    const aroundEnvelope = spec.call.kind === "envelope" && whole.content !== null;
    // With parallel calls off the answer ends at its one call (the grammar offers only the end of
    // the turn there): text after it is content only the parser reads.
    const callEnd = ref.events.findLastIndex((e) => e.type === "tool_call_end");
    const afterOneCall =
      options.parallelToolCalls === false &&
      callEnd >= 0 &&
      ref.events.slice(callEnd + 1).some((e) => e.type === "content" && e.delta !== "");
    if (
      whole.toolCalls.length &&
      !whole.incomplete.length &&
      !whole.dropped.length &&
      !refused &&
      !proseFirst &&
      !aroundEnvelope &&
      !afterOneCall &&
      options.finishReason !== "length"
    ) {
      const { maxCallLength: _m, finishReason: _f, ...grammarOptions } = options;
      const grammar = lib.buildToolGrammar(grammarOptions);
      // With parallel calls off the grammar ends the answer at its call, whitespace after it too
      // (the turn ends there); the parser reads that whitespace as nothing.
      const trailingSpace = options.parallelToolCalls === false && /\s$/.test(text);
      if (!lib.grammarAccepts(grammar, text) && !(trailingSpace && lib.grammarAccepts(grammar, text.trimEnd())))
        return fail(
          "grammar accepts what the parser calls complete",
          `calls: ${clip(JSON.stringify(whole.toolCalls))}`,
        );
      return undefined; // the whole answer accepted: each call's beginning is too
    }
    // Call by call, also where invalid or cut calls follow the complete ones.
    const why = whole.toolCalls.length ? completeBeyondGrammar(lib, spec, text, options) : undefined;
    if (why) return fail("grammar accepts each call the parser calls complete", why);
  }
  return undefined;
}

/** The constant a growth check allows for 4x the input (2x: half of it). */
const GROWTH_SLACK = 16_384;

/**
 * Whether reads grew faster than the input from `k` to `4k` repeats: over 5x the reads (plus a
 * constant), and not by one jump on the way. An input can cross a threshold there (a bracket run
 * closed by the repeats: a call cut at the end becomes a call ended, read and reported, and what
 * follows it is content) and read more per character past it, linearly. So the reads that each
 * doubling adds are compared: linear growth adds 2x what the doubling before added (plus a
 * constant), a rescan 4x (the square: 4a² - a² after a² - (a/2)²). A jump is excused where,
 * past it, one doubling adds at most 2.5x what the one before added: 4k to 8k after 2k to 4k, else
 * 8k to 16k after 4k to 8k (a jump between 2k and 4k). `reads(n)` counts the reads of `n` repeats.
 * Returns the counts that show it, or undefined.
 */
export function superlinearReads(reads, k) {
  const counts = {};
  const f = (n) => (counts[n] ??= reads(n));
  if (f(4 * k) <= 5 * f(k) + GROWTH_SLACK) return undefined;
  const added = (n) => f(2 * n) - f(n); // what doubling n repeats adds
  const steady = (n) => added(2 * n) <= 2.5 * added(n) + GROWTH_SLACK / 2;
  if (steady(2 * k) || steady(4 * k)) return undefined;
  return counts;
}

/**
 * Reads grow linearly: a random part of an input repeated to ~`size` and to 4x that, whole and in
 * 3- and 16-character chunks; 4x the input must take under 5x the reads (plus a constant), unless
 * the growth is one jump between two linear stretches (superlinearReads).
 */
export function checkGrowth(lib, counter, spec, seed, size = 8_000, verdicts = true) {
  const { text, options } = makeInput(spec, seed, { maxSize: 2_000, verdicts, fencedSpec: fencedSpecOf(lib, spec) });
  const r = rng(seed ^ 0x5bd1e995);
  const i = Math.floor(r() * text.length),
    j = Math.min(text.length, i + 1 + Math.floor(r() * 300));
  const seg = text.slice(i, j) || "x";
  const grown = (k) => text.slice(0, i) + seg.repeat(k) + text.slice(j);
  const k = Math.max(1, Math.ceil(size / seg.length));
  const opts = { ...options, maxCallLength: undefined };
  delete opts.maxCallLength;
  for (const chunk of [0, 3, 16]) {
    const reads = (t) => {
      counter.reset();
      const p = new lib.ToolCallStreamParser(opts);
      const step = chunk || t.length;
      for (let at = 0; at < t.length; at += step) p.feed(t.slice(at, at + step));
      p.end();
      return counter.reads;
    };
    let counts;
    try {
      counts = superlinearReads((n) => reads(grown(n)), k);
    } catch (e) {
      return { check: "no exception (growth)", message: `${e?.name}: ${e?.message}`, text: grown(k), options: opts };
    }
    if (counts) {
      const told = Object.entries(counts).map(([n, r]) => `${n} times: ${r}`);
      return {
        check: "linear reads",
        message: `${JSON.stringify(clip(seg, 80))} repeated, chunks of ${chunk || "all"}, characters read: ${told.join(", ")}`,
        text: grown(k),
        options: opts,
      };
    }
  }
  return undefined;
}

/**
 * Fuzzes one dialect: inputs `from`..`from + count - 1` of run `seed`. Every `growthEvery`-th input
 * also gets a growth check, every `grammarEvery`-th the grammar check. Returns counts and failures
 * (each with the seed and index that reproduce it).
 */
export function fuzzDialect(
  lib,
  counter,
  dialect,
  {
    seed = 1,
    from = 0,
    count = 1000,
    maxSize = 20_000,
    growthEvery = 100,
    grammarEvery = 10,
    stopAfter = 5,
    verdicts = true,
  } = {},
) {
  const spec = lib.getDialect(dialect);
  const failures = [];
  let tried = 0,
    growth = 0,
    grammar = 0;
  for (let index = from; index < from + count && failures.length < stopAfter; index++) {
    const s = inputSeed(seed, dialect, index);
    const g = grammarEvery > 0 && index % grammarEvery === 0;
    let f = checkInput(lib, spec, s, { maxSize, grammar: g, verdicts });
    tried++;
    grammar += g ? 1 : 0;
    if (!f && growthEvery > 0 && index % growthEvery === 0) {
      f = checkGrowth(lib, counter, spec, s, undefined, verdicts);
      growth++;
    }
    if (f) failures.push({ dialect, seed, index, verdicts, ...f });
  }
  return { dialect, tried, growth, grammar, failures };
}

/** A failure as a reader reproduces it. */
export function describeFailure(f) {
  return [
    `${f.dialect} input ${f.index} (seed ${f.seed}): ${f.check}`,
    `  ${f.message.split("\n").join("\n  ")}`,
    `  options: ${JSON.stringify({ ...f.options, tools: f.options.tools?.map((t) => t.function.name) })}`,
    `  input (${f.text.length} characters): ${clip(JSON.stringify(f.text), 1500)}`,
    `  rerun: npm run fuzz -- --dialect ${f.dialect} --seed ${f.seed} --from ${f.index} --inputs 1${f.verdicts === false ? " --verdicts 0" : ""}`,
  ].join("\n");
}
