// Random walks of the native matcher per dialect and the checks the walks suite runs on them:
// a finished walk parses as complete calls; every byte-prefix gets the same verdict from
// the grammar (can the output end here?) and the parser (cut with finishReason "length"?).
import type { GrammarMatcher, ParseResult, ParserOptions, ToolCall } from "../../src/index.js";
import { getDialect, parseToolCalls } from "../../src/index.js";
import { triggerOf } from "../../src/dialects/spec.js";
import { refusedCall } from "../../src/dialects/call-grammar.js";
import { normalizeTools } from "../../src/dialects/tools.js";
import { resolveRequest } from "../../src/dialects/options.js";
import { hasOwnTrigger } from "../../src/dialects/opening.js";
import { writeCall, writeOpeningCall } from "../../scripts/lib/dialect-writer.mjs";
import { FILE_TOOLS as FILE, TYPED_TOOLS as TYPED } from "./tools.js";

export interface WalkConfig {
  label: string;
  options: ParserOptions & { maxValueLength: number };
  /** Share of the dialect's walks: typed tools explore far more states per walk, so they get fewer. */
  weight: number;
  /**
   * The declared tool whose call the walk begins with, name written. Where a name may also leave
   * every declared one (the call is then text: refusedCall), a walk from the trigger alone would
   * almost always leave, so the walks of calls start past the name.
   */
  startName?: string;
  /** The walk may end without a call (under auto, from the trigger: a call with another name is text). */
  noCallsOk?: boolean;
  /** The text the walk begins with, where it is not the dialect's trigger (or a declared head). */
  start?: string;
}

/** Whether the dialect's grammar lets a call with an undeclared name stand as text. */
export function hasRefusedPath(dialect: string): boolean {
  const spec = getDialect(dialect);
  return refusedCall(spec, normalizeTools(FILE, spec)) !== undefined;
}

/** Every string schema capped at 12 characters, so JSON string values close and walks finish. */
function capped<T>(s: T): T {
  if (Array.isArray(s)) return s.map(capped) as T;
  if (s === null || typeof s !== "object") return s;
  const o = s as Record<string, unknown>;
  if (o.type === "string" && !o.enum) return { ...o, maxLength: 12 } as T;
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, capped(x)])) as T;
}

/** Tool sets and options a dialect is walked under; reasoning only where the dialect has a thought. */
export function walkConfigs(dialect: string): WalkConfig[] {
  const FILE_TOOLS = capped(FILE),
    TYPED_TOOLS = capped(TYPED);
  const base = { dialect, maxValueLength: 12 }; // small raw values close, so walks finish
  const configs: WalkConfig[] = [
    {
      label: "file tools, required, one call",
      weight: 9,
      options: { ...base, tools: FILE_TOOLS, toolChoice: "required", parallelToolCalls: false },
    },
    {
      label: "file tools, auto, parallel",
      weight: 9,
      options: { ...base, tools: FILE_TOOLS, toolChoice: "auto", parallelToolCalls: true },
      ...(hasRefusedPath(dialect) ? { startName: "read" } : {}),
    },
    {
      label: "file tools, named edit",
      weight: 9,
      options: {
        ...base,
        tools: FILE_TOOLS,
        toolChoice: { type: "function", function: { name: "edit" } },
        parallelToolCalls: false,
      },
    },
    {
      label: "typed tools, required, parallel",
      weight: 4,
      options: { ...base, tools: TYPED_TOOLS, toolChoice: "required", parallelToolCalls: true },
    },
  ];
  if (hasRefusedPath(dialect))
    configs.push({
      label: "file tools, auto, undeclared names",
      weight: 9,
      options: { ...base, tools: FILE_TOOLS, toolChoice: "auto", parallelToolCalls: true },
      noCallsOk: true,
    });
  const fenced: { fencedCalls?: true } | undefined = getDialect(dialect).openingCalls ? {} : fencedOption(dialect);
  if (fenced) {
    // Calls opening the answer in a fence or bare (src/dialects/opening.ts): walked from the
    // answer's start (from a fence's first character where a call is the only other choice), and
    // after a fenced and after a bare call, where the walk writes more calls, text, or nothing.
    const spec = resolveRequest({ dialect, ...fenced }).spec;
    const read = (form: number) => writeOpeningCall(spec, "read", [["path", '"a.txt"']], form, () => form > 0);
    // A call's head up to its name's closing quote: walks that go on from it write a call.
    const head = (form: number, name: string) => {
      const call = writeOpeningCall(spec, name, [], form, () => form > 0);
      return call.slice(0, call.indexOf(JSON.stringify(name)) + name.length + 2);
    };
    const auto = { ...base, ...fenced, tools: FILE_TOOLS, toolChoice: "auto" as const, parallelToolCalls: true };
    configs.push(
      {
        label: "file tools, required, parallel, fenced calls",
        weight: 9,
        options: { ...base, ...fenced, tools: FILE_TOOLS, toolChoice: "required", parallelToolCalls: true },
        start: fenced.fencedCalls ? " " : "`",
      },
      { label: "file tools, auto, after a fenced call", weight: 9, options: auto, start: `${read(1)}\n` },
      {
        label: "file tools, auto, a second fenced call",
        weight: 9,
        options: auto,
        start: `${read(1)}\n\n${head(1, "edit")}`,
      },
      {
        label: "file tools, auto, a second bare call after a comma",
        weight: 9,
        options: auto,
        start: `${read(0)},\n${head(0, "write")}`,
      },
      ...(hasOwnTrigger(spec)
        ? [
            {
              label: "file tools, auto, the dialect's own call after a fenced call",
              weight: 9,
              options: auto,
              start: `${read(1)}\n${ownHead(spec, "edit")}`,
            },
          ]
        : []),
      {
        label: "file tools, one call, after a fenced call",
        weight: 4,
        options: { ...auto, parallelToolCalls: false },
        start: read(1),
      },
    );
  }
  if (getDialect(dialect).reasoning)
    configs.push({
      label: "file tools, reasoning, required, parallel",
      weight: 9,
      options: { ...base, tools: FILE_TOOLS, toolChoice: "required", parallelToolCalls: true, reasoning: true },
    });
  return configs;
}

/** The dialect's own call (at its trigger) up to its name's closing quote. */
function ownHead(spec: ReturnType<typeof getDialect>, name: string): string {
  const call = writeCall(spec, name, [], { form: "own" });
  return call.slice(0, call.indexOf(JSON.stringify(name)) + name.length + 2);
}

/** The option that gives a dialect fenced and bare opening calls where it takes one (hermes), else undefined. */
function fencedOption(dialect: string): { fencedCalls: true } | undefined {
  try {
    resolveRequest({ dialect, fencedCalls: true });
    return { fencedCalls: true };
  } catch {
    return undefined;
  }
}

/**
 * Where a walk starts: free content is text a random walk would wander in forever, so the
 * walk starts at the dialect's trigger, as a model that calls does; a thought first when on.
 */
export function walkStart(o: ParserOptions, startName?: string, start?: string): string {
  if (start !== undefined) return start;
  const spec = getDialect(o.dialect as string);
  if (startName !== undefined) return declaredHeads(spec, [startName])[0]!;
  // After a thought: a newline, or in harmony the next message's start.
  const next =
    spec.call.kind === "harmony"
      ? spec.call.messageStart.map((g) => (typeof g === "string" ? g : g.optional)).join("")
      : "\n";
  const thought =
    o.reasoning && spec.reasoning ? `${spec.reasoning.open}Check the file first.${spec.reasoning.close}${next}` : "";
  // The generic dialect's "{" opens a response as well as calls: its calls key starts the walk.
  const trigger = spec.call.kind === "envelope" ? `{"${spec.call.callsKey}": [` : triggerOf(spec);
  return thought + trigger;
}

/**
 * Where the byte-prefix agreement starts. Harmony answers are messages: the grammar cannot end
 * before one is written, while the parser reads text outside messages as content, so the two are
 * compared from the call's recipient on (the calls are what the agreement is about).
 */
export function prefixFrom(o: ParserOptions, start: string): number {
  // Harmony headers and the generic envelope's opening: the grammar cannot end there, while the
  // parser reads so short a text as content.
  const kind = getDialect(o.dialect as string).call.kind;
  return kind === "harmony" || kind === "envelope" ? Buffer.byteLength(start, "utf8") : 0;
}

const requiresCall = (o: ParserOptions) => o.toolChoice === "required" || typeof o.toolChoice === "object";
const sameCall = (a: ToolCall, b: ToolCall) =>
  a.function.name === b.function.name && a.function.arguments === b.function.arguments;

/**
 * A call's text up to its name's close, as the dialect writer writes it (every optional glue, and
 * none), for each of `names`: what the parser must take for a call wherever a call may stand.
 */
function declaredHeads(spec: ReturnType<typeof getDialect>, names: string[]): string[] {
  const f = spec.call;
  return names.flatMap((name) =>
    [true, false].map((all) => {
      const call = writeCall(spec, name, [], { take: () => all && f.kind !== "named" });
      const close =
        f.kind === "json" ? JSON.stringify(name) : name + ("nameClose" in f && f.nameClose !== null ? f.nameClose : "");
      return call.slice(0, call.indexOf(close) + close.length);
    }),
  );
}

/** Where content holds the head of a call of a tool the call may name (a call the parser did not take), or null. */
function declaredHeadInContent(o: ParserOptions, res: ParseResult): string | null {
  const spec = getDialect(o.dialect as string);
  if (!hasRefusedPath(spec.name)) return null;
  const content = res.content ?? "";
  const names =
    typeof o.toolChoice === "object"
      ? [o.toolChoice.function.name]
      : (o.tools as typeof FILE).map((t) => t.function.name);
  for (const head of declaredHeads(spec, names)) {
    // Where the call opens the answer, only the answer's start is a call's place.
    const at = spec.callOpensAnswer ? (content.trimStart().startsWith(head) ? 0 : -1) : content.indexOf(head);
    if (at >= 0) return `content holds a declared call's head ${JSON.stringify(head)} at ${at}`;
  }
  return null;
}

/** What is wrong with a finished walk's output as a parse, or null; `noCallsOk`: an answer without calls may be right. */
export function checkComplete(_text: string, o: ParserOptions, res: ParseResult, noCallsOk = false): string | null {
  if (res.incomplete.length) return `incomplete: ${JSON.stringify(res.incomplete)}`;
  const lost = declaredHeadInContent(o, res);
  if (lost) return lost;
  if (res.toolCalls.length === 0 && noCallsOk && o.toolChoice === "auto")
    return res.finishReason === "stop" ? null : `no calls, finishReason ${res.finishReason}`;
  if (res.toolCalls.length === 0) return "no calls";
  if (o.parallelToolCalls === false && res.toolCalls.length > 1)
    return `${res.toolCalls.length} calls with parallelToolCalls false`;
  if (res.finishReason !== "tool_calls") return `finishReason ${res.finishReason}`;
  const named = typeof o.toolChoice === "object" ? o.toolChoice.function.name : undefined;
  for (const call of res.toolCalls) {
    const tool = (o.tools as typeof FILE).find((t) => t.function.name === call.function.name);
    if (!tool || (named && call.function.name !== named)) return `call to ${call.function.name}, not allowed`;
    const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
    const missing = tool.function.parameters.required.filter((k) => !(k in args));
    if (missing.length) return `${call.function.name} lacks ${missing.join(", ")}`;
  }
  return null;
}

/**
 * The byte-prefix agreement: at every byte-prefix of a complete output, the grammar can end
 * there exactly when the parser, told the output was cut (finishReason "length"), reports no
 * cut or invalid call and (under a toolChoice that requires one) at least one call; and the
 * calls it then reports are the first calls of the whole output. Inside a UTF-8 character the
 * grammar can never end. Returns the first disagreement, or null.
 */
export function checkPrefixes(
  m: GrammarMatcher,
  bytes: Uint8Array,
  o: ParserOptions,
  whole: ParseResult,
  from = 0,
): string | null {
  const request = resolveRequest(o); // once for every prefix
  m.reset();
  const canEnd = [m.isComplete()];
  for (let i = 0; i < bytes.length; i++) {
    if (!m.acceptBytes(bytes.subarray(i, i + 1))) return `the grammar refuses byte ${i} of its own walk`;
    canEnd.push(m.isComplete());
  }
  for (let i = from; i <= bytes.length; i++) {
    if (i < bytes.length && (bytes[i]! & 0xc0) === 0x80) {
      if (canEnd[i]) return `the grammar can end inside a UTF-8 character (byte ${i})`;
      continue;
    }
    const prefix = Buffer.from(bytes.subarray(0, i)).toString("utf8");
    const r = parseToolCalls(prefix, { ...request, finishReason: "length" });
    const parserDone = r.incomplete.length === 0 && (r.toolCalls.length > 0 || !requiresCall(o));
    if (parserDone !== canEnd[i])
      return (
        `prefix ${JSON.stringify(prefix)}: the grammar ${canEnd[i] ? "can" : "cannot"} end there, the parser reports ` +
        `${r.toolCalls.length} calls and incomplete ${JSON.stringify(r.incomplete.map((c) => `${c.kind}: ${c.reason}`))}`
      );
    if (parserDone && !r.toolCalls.every((c, k) => whole.toolCalls[k] && sameCall(c, whole.toolCalls[k]!)))
      return `prefix ${JSON.stringify(prefix)}: calls ${JSON.stringify(r.toolCalls)} are not the output's first calls`;
  }
  return null;
}
