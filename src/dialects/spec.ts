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
  /** Ends the function name, e.g. ">". */
  nameClose: string;
  /** Before each parameter, e.g. [{optional:"\n"}, "<parameter="]. */
  paramOpen: Glue;
  /** Ends a parameter name, e.g. ">". */
  paramNameClose: string;
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
  /** Between the name (or index) and the arguments object, e.g. ["<|tool_call_argument_begin|>"]. */
  argsOpen?: Glue;
  /** After the arguments object (may be empty). */
  close: Glue;
}

export interface DialectSpec {
  name: string;
  description: string;
  /** A thought block the family may open its answer with. */
  reasoning?: { open: string; close: string };
  call: XmlCallFormat | JsonCallFormat | NamedJsonCallFormat;
  /** A wrapper around all of an answer's calls (DeepSeek's calls begin/end): it opens with the first call and closes after the last. */
  section?: { open: string; close: string };
}

/** The text that starts a call: the first fixed string of its opening glue. */
export function callTriggerOf(spec: DialectSpec): string {
  const first = spec.call.open.find((g): g is string => typeof g === "string");
  if (!first) throw new Error(`dialect ${spec.name}: a call must open with a fixed string`);
  return first;
}

/** The text that starts the call structure in free text: the section's open, or a call's. */
export function triggerOf(spec: DialectSpec): string {
  return spec.section?.open ?? callTriggerOf(spec);
}

/** A call's opening glue without its first fixed string (the trigger, already consumed). */
export function afterTrigger(open: Glue): Glue {
  return open.slice(open.findIndex((p) => typeof p === "string") + 1);
}
