// A dialect is ONE definition of a model family's tool-call wire format. The grammar
// (src/dialects/grammar.ts) and the streaming parser (src/parser/stream.ts) are two
// interpreters of it, so they cannot disagree about where a value ends or whether a
// call finished.

/** Literal glue between parts of a call: fixed strings and optional strings. */
export type Glue = Array<string | { optional: string }>;

/** `<function=NAME>` then `<parameter=K>V</parameter>` per argument, values raw text. */
export interface XmlCallFormat {
  kind: "xml";
  /** From the trigger to the function name, e.g. ["<tool_call>", {optional:"\n"}, "<function="]. */
  open: Glue;
  /**
   * Ends the function name, e.g. ">". null: no fixed string does (GLM's `<tool_call>NAME<arg_key>`);
   * the name ends where a parameter (paramOpen) or the call's close begins.
   */
  nameClose: string | null;
  /** Before each parameter, e.g. [{optional:"\n"}, "<parameter="]. */
  paramOpen: Glue;
  /** Ends a parameter name, e.g. ">". */
  paramNameClose: string;
  /** Between a parameter name's close and its value, e.g. [{optional:"\n"}, "<arg_value>"] (GLM). */
  valueOpen?: Glue;
  /** Ends a value: the first occurrence closes it (exactly as the grammar's `until`). */
  valueClose: string;
  /** One leading and one trailing "\n" of a value are padding, not value. */
  trimNewline: boolean;
  /**
   * Non-string values may be Python literals as well as JSON (`{'a': [1, True]}`): the family's
   * template writes them with Python's str() (Jinja `| string`), so its models do too.
   */
  pythonLiterals?: boolean;
  /** After the last parameter, e.g. [{optional:"\n"}, "</function>", {optional:"\n"}, "</tool_call>"]. */
  close: Glue;
  /**
   * The close's last fixed string (the call's scope) may be missing when the output ends
   * right there: a complete call whose scope was never closed is kept (Seed-OSS, as llama.cpp).
   */
  scopeCloseOptionalAtEnd?: boolean;
}

/** `{"name": NAME, "arguments": {…}}` inside markers. */
export interface JsonCallFormat {
  kind: "json";
  /** From the trigger to the JSON object, e.g. ["<tool_call>", {optional:"\n"}]. */
  open: Glue;
  nameKey: string;
  argsKey: string;
  /** A key after the arguments carrying the call's id (Mistral Nemo: "id", 9 letters or digits). */
  id?: { key: string; length: number };
  /** After the object, e.g. [{optional:"\n"}, "</tool_call>"]. */
  close: Glue;
}

/** NAME then a JSON arguments object, between markers: `[TOOL_CALLS]NAME[ARGS]{…}`. */
export interface NamedJsonCallFormat {
  kind: "named";
  /** From the trigger to the function name, e.g. ["[TOOL_CALLS]"]. */
  open: Glue;
  /** Ends the function name, e.g. "[ARGS]". */
  nameClose: string;
  /** Digits after the name's close (Kimi's call index in `functions.NAME:0`). */
  index?: boolean;
  /**
   * The call's id on the wire. "head": its text from after the trigger through the index (Kimi's
   * `functions.NAME:0`); or an optional marker after the name with an id of `length` letters or
   * digits before the name's close (Mistral Small 3.2's `[CALL_ID]abcdefghi[ARGS]`).
   */
  id?: "head" | { open: string; length: number };
  /** Between the name (or index) and the arguments object, e.g. ["<|tool_call_argument_begin|>"]. */
  argsOpen?: Glue;
  /** After the arguments object (may be empty). */
  close: Glue;
}

/**
 * Python-style calls: `NAME(k=v, k2=v2)`, keyword arguments in any order, values Python literals
 * (JSON's `true`/`false`/`null` and JSON containers as well: LFM2's templates write dicts with
 * `tojson`). The calls of an answer are a list's elements (the section's `arrayOpen`).
 */
export interface PythonCallFormat {
  kind: "python";
  /** Nothing: a call opens with its name, inside the section's list. */
  open: Glue;
  /** Ends the function name: "(". */
  nameClose: string;
}

/**
 * The whole answer is one JSON object (llama.cpp's generic handler, for templates that show no
 * tool calls): `{"tool_calls": [{"name", "arguments"}, …]}`, `{"tool_call": {"name", "arguments"}}`
 * or `{"response": "text"}`. src/parser/read-envelope.ts reads it; the prompt describes the tools
 * (src/dialects/prompt.ts).
 */
export interface EnvelopeCallFormat {
  kind: "envelope";
  /** Nothing: the object's own "{" starts the answer. */
  open: Glue;
  nameKey: string;
  argsKey: string;
  /** The calls as an array: "tool_calls". */
  callsKey: string;
  /** One call: "tool_call". */
  callKey: string;
  /** A text answer: "response". */
  responseKey: string;
}

/**
 * Harmony (gpt-oss): the answer is a sequence of messages, not text with calls in it. A message is
 * a header (a channel, perhaps a recipient and a content type) then `<|message|>` and a body; the
 * first follows the generation prompt `<|start|>assistant`, each later one opens with it again.
 * src/dialects/grammar-harmony.ts says which messages may come in which order (the grammar) and
 * src/parser/read-harmony.ts reads them (the parser).
 */
export interface HarmonyCallFormat {
  kind: "harmony";
  /** The recipient of a call, just before the function name: [" to=functions."]. It starts a call. */
  open: Glue;
  /** Opens every message after the first: ["<|start|>", "assistant"]. */
  messageStart: Glue;
  /** Opens the channel name: "<|channel|>". */
  channel: string;
  /** Ends a header: "<|message|>". */
  message: string;
  /** Channel names: the thought, calls and their preambles, the answer. */
  channels: { reasoning: string; calls: string; final: string };
  /** A call's content type, after its channel or its name: [" ", {optional:"<|constrain|>"}, "json"]. */
  contentType: Glue;
  /** Ends a message that another follows: "<|end|>". */
  end: string;
  /** Ends a call message; the end of generation of a tool-call turn: "<|call|>". */
  callEnd: string;
  /** Ends the final message, the end of generation of an answer: "<|return|>" (`end` also ends it). */
  finalEnd: string;
}

export interface DialectSpec {
  name: string;
  description: string;
  /** A thought block the family may open its answer with. */
  reasoning?: {
    open: string;
    close: string;
    /** Optional text before the open (GLM-4.6 writes "\n<think>"). */
    lead?: string;
  };
  call:
    | XmlCallFormat
    | JsonCallFormat
    | NamedJsonCallFormat
    | HarmonyCallFormat
    | PythonCallFormat
    | EnvelopeCallFormat;
  /** A wrapper around all of an answer's calls (DeepSeek's calls begin/end): it opens with the first call and closes after the last. */
  section?: {
    open: string;
    close: string;
    /** Optional text before each call and before the close inside the section (MiniMax writes "\n"). */
    gap?: string;
    /** The calls are a JSON array's elements: this opens it, "," separates, `close` ends it, JSON whitespace around (Mistral Nemo: "["). */
    arrayOpen?: string;
    /** Right after the array's close, a fixed string that ends the section (LFM2: "<|tool_call_end|>"). */
    end?: string;
  };
  /**
   * Calls carry no marker (Llama 3.x): one call, a JSON object that opens the answer after
   * whitespace only; text after it is content. Content alone never starts with "{".
   */
  callOpensAnswer?: boolean;
  /**
   * Calls that open the answer without the dialect's trigger, one after another (Qwen2.5-Coder's
   * bare and fenced JSON calls; hermes with `fencedCalls`): src/dialects/opening.ts says where they
   * may stand and how text departs from them. The call is `call`'s JSON object (its keys), in one of
   * the wrappers.
   */
  openingCalls?: OpeningCalls;
  /**
   * How the prompt carries the tools and past calls when the family's template does not
   * (src/dialects/prompt.ts): "generic" describes them in the system message as llama.cpp's
   * generic handler does; "calls-as-content" writes past calls into the assistant's content in
   * the dialect's own wire form (LFM2's template prints content only).
   */
  prompt?: "generic" | "calls-as-content";
  /** How detectDialect (src/engine/detect-dialect.ts) tells a chat template or model of this family. */
  detect?: DialectDetection;
}

/** Glue around a JSON call object that opens the answer: `{ open: [], close: [] }` is the bare object. */
export interface CallWrapper {
  /** Before the object; JSON whitespace may follow it (a fence's "```json\n"). */
  open: Glue;
  /** After the object; JSON whitespace may precede it (a fence's "```"). */
  close: Glue;
}

export interface OpeningCalls {
  /** The forms a call takes: each a wrapper, their opens' first characters all different. */
  wrappers: CallWrapper[];
  /** Between two calls besides JSON whitespace: this string once, JSON whitespace after it (","). */
  separator?: string;
}

export interface DialectDetection {
  /** A template that spells every marker of one of these lists writes this dialect. */
  markers?: ReadonlyArray<readonly string[]>;
  /**
   * Dialects are tried from the highest priority down, the first match wins: one whose markers
   * another's template also spells comes first (Seed-OSS also writes `<function=`, which is
   * Qwen3-Coder's; GLM also writes `<tool_call>`, which is Hermes').
   */
  priority?: number;
  /**
   * Models that write this dialect although their template shows another (`template`), told apart
   * by the GGUF's general.name.
   */
  modelName?: { template: string; pattern: RegExp };
}

/** The text that starts a call: the first fixed string of its opening glue, or a JSON call's own "{". */
export function callTriggerOf(spec: DialectSpec): string {
  const first = spec.call.open.find((g): g is string => typeof g === "string");
  if (first) return first;
  if (objectIsTrigger(spec)) return "{";
  // Python calls are a list's elements: only the section's open tells one starts.
  if (spec.call.kind === "python" && spec.section) return spec.section.open;
  throw new Error(`dialect ${spec.name}: a call must open with a fixed string`);
}

/** A JSON call without opening glue: the "{" that starts it is part of the call, not glue before it. */
export function objectIsTrigger(spec: DialectSpec): boolean {
  return (spec.call.kind === "json" || spec.call.kind === "envelope") && spec.call.open.length === 0;
}

/** The section's close as the text spells it: the array's close and the section's end right after. */
export function sectionCloseText(spec: DialectSpec): string {
  return `${spec.section!.close}${spec.section!.end ?? ""}`;
}

/** The text that starts the call structure in free text: the section's open, or a call's. */
export function triggerOf(spec: DialectSpec): string {
  return spec.section?.open ?? callTriggerOf(spec);
}

/** A call's opening glue without its first fixed string (the trigger, already consumed). */
export function afterTrigger(open: Glue): Glue {
  return open.slice(open.findIndex((p) => typeof p === "string") + 1);
}
