// Renders a model's own Jinja chat template (the file shipped in tokenizer_config.json / GGUF
// metadata) with @huggingface/jinja, the way Python's transformers does. Used to check that our
// dialect parsers read exactly what each model family's template writes.
//
// Where @huggingface/jinja 0.5.x departs from Python jinja2 in ways that change tool-call text,
// the interpreter is adjusted per render (never globally: node-llama-cpp shares the module):
// - printing (`{{ x }}`), `x | string` and `a ~ b` use Python's str(): True/False/None, dicts and
//   lists as Python reprs ({'a': 1}), floats as Python reprs (1e+16, 3.0). The library would print
//   true/false, JSON, or throw ("Unknown ObjectValue filter: string").
// - `list.append(x)` / `list.pop(i)` work (Kimi K2 templates use them; the library has neither;
//   transformers' immutable sandbox refuses them, minja in llama.cpp allows them).
// - `str.strip/lstrip/rstrip(chars)` honour `chars` (the library strips all whitespace).
// - `Undefined | trim` is "" and `d[Undefined]` is Undefined, as in jinja2 (the library throws).
// - `strftime_now`, `range`, `raise_exception` are ours (deterministic `now`, English month names).
// Known template incompatibilities (DESIGN.md) are handled here, each named in KNOWN_FIXES below.

import { Environment, Interpreter, Template } from "@huggingface/jinja";
import { pyFloat, pyReprString } from "../grammar/python-repr.js";
import { readExactJson } from "../parser/exact-json.js";

export interface ChatToolCall {
  id?: string;
  type?: string;
  /** OpenAI shape; `arguments` may be a JSON string (the API's form) or an object. */
  function: { name: string; arguments?: string | Record<string, unknown> | null };
  [key: string]: unknown;
}

export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: ChatToolCall[] | null;
  tool_call_id?: string;
  name?: string;
  [key: string]: unknown;
}

/** The chat template refused the messages, tools or options it was given (or could not be read). */
export class ChatTemplateError extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = "ChatTemplateError";
  }
}

export interface RenderChatOptions {
  messages: ChatMessage[];
  /** OpenAI tool definitions ({type: "function", function: {name, description, parameters}}). */
  tools?: unknown[];
  addGenerationPrompt?: boolean;
  bosToken?: string;
  eosToken?: string;
  /** More template variables (enable_thinking, thinking, date_string, …); they win over ours. */
  extra?: Record<string, unknown>;
  /** Names the template in errors (e.g. its file name). */
  name?: string;
  /** The clock `strftime_now` reads; defaults to the current time, as transformers does. */
  now?: Date;
}

/** Structural view of @huggingface/jinja's runtime values (its classes are not exported). */
interface RuntimeValue {
  type: string;
  value: unknown;
  toString(): string;
}
interface AstNode {
  type: string;
  [key: string]: unknown;
}
type Program = Template["parsed"];
interface PatchableInterpreter {
  evaluate(node: AstNode | undefined, env: Environment): RuntimeValue;
  evaluateBlock(statements: AstNode[], env: Environment): RuntimeValue;
  run(program: Program): RuntimeValue;
}

// The runtime's StringValue and NullValue classes, taken from values it creates.
const StringValue = new Environment().set("s", "").constructor as new (value: string) => RuntimeValue;
const NullValue = new Environment().set("n", null).constructor as new (value: null) => RuntimeValue;

/**
 * A known template incompatibility and its minimal remedy. `test` looks at the template source.
 * - seed-oss-int-keys: jinja2 allows `{0: 0, 512: 128}`; @huggingface/jinja throws "Object keys
 *   must be strings". The dict literal becomes a key-sorted list of [k, v] pairs; `NAME | dictsort`
 *   becomes `NAME` and `NAME[<int literal>]` becomes the literal value. Python renders the rewritten
 *   source identically (checked against Python jinja2 for thinking_budget unset, -1, 0, 1, 300, 512,
 *   513, 5000, 16384, 99999).
 * - null-content-as-empty: gpt-oss (`"<|channel|>…" in message.content`) throws on an assistant
 *   `content: null` (Python jinja2 too), and OpenAI clients send null beside tool calls. For that
 *   template family only, a null content of an assistant message with tool calls becomes "".
 *   Other templates get null as is: some print "None" (GLM, MiniMax), some throw (Qwen3,
 *   Ministral 3, Devstral), exactly as in Python; test/no-model/chat-templates.test.ts records which.
 */
const KNOWN_FIXES = {
  intKeyedDicts: (src: string) => /\{%-?\s*set\s+\w+\s*=\s*\{\s*-?\d+\s*:/.test(src),
  nullContentAsEmpty: (src: string) => src.includes('"<|channel|>analysis<|message|>" in message.content'),
};

/** Rewrites integer-keyed dict literals (see KNOWN_FIXES); returns the source unchanged otherwise. */
export function rewriteIntKeyedDicts(source: string): string {
  const setRe = /(\{%-?\s*set\s+)(\w+)(\s*=\s*)\{([^{}]*)\}(\s*-?%\})/g;
  let out = source;
  for (const m of source.matchAll(setRe)) {
    const [whole, head, name, eq, body, tail] = m as unknown as [string, string, string, string, string, string];
    const entries = body
      .split(",")
      .map((e) => e.trim())
      .filter((e) => e.length > 0)
      .map((e) => /^(-?\d+)\s*:\s*(-?\d+(?:\.\d+)?)$/.exec(e));
    if (entries.length === 0 || entries.some((e) => e === null)) continue;
    const pairs = (entries as RegExpExecArray[]).map((e) => [Number(e[1]), e[2]!] as const).sort((a, b) => a[0] - b[0]);
    const esc = name; // a \w+ identifier: nothing to escape
    // Every other use must be one we can rewrite, or we leave the template alone.
    const uses = [...out.matchAll(new RegExp(`\\b${esc}\\b(\\s*\\|\\s*dictsort|\\[\\s*-?\\d+\\s*\\])?`, "g"))];
    if (uses.filter((u) => u[1] === undefined).length !== 1) continue; // only the `set` itself
    out = out.replace(whole, `${head}${name}${eq}[${pairs.map(([k, v]) => `[${k}, ${v}]`).join(", ")}]${tail}`);
    out = out.replace(new RegExp(`\\b${esc}\\s*\\|\\s*dictsort`, "g"), name);
    out = out.replace(new RegExp(`\\b${esc}\\[\\s*(-?\\d+)\\s*\\]`, "g"), (use, k: string) => {
      const hit = pairs.find(([key]) => key === Number(k));
      return hit ? hit[1] : use;
    });
  }
  return out;
}

const parsed = new Map<string, Program>();
function compile(source: string): Program {
  let program = parsed.get(source);
  if (!program) {
    const fixed = KNOWN_FIXES.intKeyedDicts(source) ? rewriteIntKeyedDicts(source) : source;
    program = new Template(fixed).parsed;
    if (parsed.size >= 64) parsed.delete(parsed.keys().next().value as string);
    parsed.set(source, program);
  }
  return program;
}

/** Renders `template` for `opts.messages`; errors name the template and carry its message. */
export function renderChat(template: string, opts: RenderChatOptions): string {
  const name = opts.name ?? "chat template";
  try {
    const program = compile(template);
    const env = new Environment();
    const vars: Record<string, unknown> = {
      ...globals(opts.now),
      bos_token: opts.bosToken ?? "",
      eos_token: opts.eosToken ?? "",
      add_generation_prompt: opts.addGenerationPrompt ?? false,
      messages: normalizeMessages(opts.messages, KNOWN_FIXES.nullContentAsEmpty(template)),
      ...(opts.tools !== undefined ? { tools: plain(opts.tools) } : {}),
      ...plainRecord(opts.extra ?? {}),
    };
    for (const [key, value] of Object.entries(vars)) env.set(key, value);
    const interpreter = pythonic(new Interpreter(env) as unknown as PatchableInterpreter);
    return String(interpreter.run(program).value);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new ChatTemplateError(`${name}: ${message}`, err);
  }
}

function globals(now: Date | undefined): Record<string, unknown> {
  return {
    true: true,
    false: false,
    none: null,
    True: true,
    False: false,
    None: null,
    raise_exception: (message: unknown) => {
      throw new Error(String(message));
    },
    strftime_now: (format: unknown) => strftime(now ?? new Date(), String(format)),
    range: (a: number, b?: number, step = 1) => {
      const [start, stop] = b === undefined ? [0, a] : [a, b];
      if (step === 0) throw new Error("range() arg 3 must not be zero");
      const out: number[] = [];
      for (let i = start; step > 0 ? i < stop : i > stop; i += step) out.push(i);
      return out;
    },
  };
}

/** OpenAI messages → what templates expect: arguments as objects, no undefined-valued keys. */
function normalizeMessages(messages: ChatMessage[], nullContentAsEmpty: boolean): unknown[] {
  return messages.map((message, i) => {
    const copy = plainRecord(message);
    if (Array.isArray(message.tool_calls)) {
      copy.tool_calls = message.tool_calls.map((call, j) => {
        const c = plainRecord(call);
        if (call.function && typeof call.function === "object") {
          const fn = plainRecord(call.function);
          if (typeof fn.arguments === "string") {
            // Templates apply `tojson` (or iterate items): a JSON string would be double-encoded.
            // Read so that the prompt shows what was sent (a repeated key or a changed number is refused).
            const where = `messages[${i}].tool_calls[${j}].function.arguments`;
            const read = fn.arguments.trim() === "" ? { value: {} } : readExactJson(fn.arguments);
            if ("error" in read)
              throw new Error(read.json ? `${where}: ${read.error}` : `${where} is not JSON: ${read.error}`);
            fn.arguments = read.value;
          }
          c.function = fn;
        }
        return c;
      });
      if (nullContentAsEmpty && message.role === "assistant" && (copy.content === null || copy.content === undefined)) {
        copy.content = "";
      }
    }
    return copy;
  });
}

/** Deep copy of JSON-like data without undefined-valued keys (a Python dict would not have them). */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === "object") return plainRecord(value as Record<string, unknown>);
  return value;
}
function plainRecord(value: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = plain(v);
  return out;
}

// --- Python str() for printed values --------------------------------------------------------

const NO_OUTPUT = new Set(["Set", "Macro", "Comment"]);

/** Patches one interpreter instance so printing and string conversion follow Python's str(). */
function pythonic(interp: PatchableInterpreter): PatchableInterpreter {
  const evaluate = interp.evaluate.bind(interp);
  interp.evaluate = (node, env) => {
    if (node?.type === "FilterExpression") {
      const filter = node.filter as AstNode;
      if (filter.type === "Identifier" && filter.value === "string") {
        return new StringValue(pyStr(interp.evaluate(node.operand as AstNode, env)));
      }
      if (filter.type === "Identifier" && filter.value === "trim") {
        // jinja2's Undefined is "" to string filters (Hermes 3: `param.description|trim`).
        const operand = interp.evaluate(node.operand as AstNode, env);
        if (operand.type === "UndefinedValue") return new StringValue("");
        return evaluate({ ...node, operand: { type: "Literal", runtime: operand } }, env);
      }
    } else if (
      node?.type === "MemberExpression" &&
      node.computed &&
      (node.property as AstNode).type !== "SliceExpression"
    ) {
      // d[undefined] is Undefined in jinja2 (Hermes 3's type map); the library throws.
      const property = interp.evaluate(node.property as AstNode, env);
      if (property.type === "UndefinedValue") return property;
      return evaluate({ ...node, property: { type: "Literal", runtime: property } }, env);
    } else if (node?.type === "Literal") {
      return (node as unknown as { runtime: RuntimeValue }).runtime; // an already-evaluated operand
    } else if (node?.type === "CallExpression" && isMethodCall(node.callee as AstNode)) {
      const callee = node.callee as AstNode;
      const method = (callee.property as AstNode).value as string;
      const self = interp.evaluate(callee.object as AstNode, env);
      const args = () => (node.args as AstNode[]).map((a) => interp.evaluate(a, env));
      if (self.type === "ArrayValue" && (method === "append" || method === "pop")) {
        return listMethod(self.value as RuntimeValue[], method, args());
      }
      if (self.type === "StringValue" && (method === "strip" || method === "lstrip" || method === "rstrip")) {
        const [chars] = args();
        const set = chars === undefined || chars.type === "NullValue" ? undefined : String(chars.value);
        return new StringValue(pyStrip(self.value as string, set, method !== "rstrip", method !== "lstrip"));
      }
      return evaluate({ ...node, callee: { ...callee, object: { type: "Literal", runtime: self } } }, env);
    } else if (node?.type === "BinaryExpression" && (node.operator as { value: string }).value === "~") {
      const left = interp.evaluate(node.left as AstNode, env);
      const right = interp.evaluate(node.right as AstNode, env);
      return new StringValue(pyStr(left) + pyStr(right));
    }
    return evaluate(node, env);
  };
  interp.evaluateBlock = (statements, env) => {
    let out = "";
    for (const statement of statements) {
      const value = interp.evaluate(statement, env);
      if (!NO_OUTPUT.has(statement.type)) out += pyStr(value);
    }
    return new StringValue(out);
  };
  return interp;
}

const METHODS = new Set(["append", "pop", "strip", "lstrip", "rstrip"]);
function isMethodCall(callee: AstNode): boolean {
  if (callee.type !== "MemberExpression" || callee.computed) return false;
  const property = callee.property as AstNode;
  return property.type === "Identifier" && METHODS.has(property.value as string);
}

// list.append(x) / list.pop([i]) as in Python (Kimi-K2-Instruct, Kimi-K2-Thinking).
function listMethod(items: RuntimeValue[], method: "append" | "pop", args: RuntimeValue[]): RuntimeValue {
  if (method === "append") {
    if (args.length !== 1) throw new Error(`append() takes exactly one argument (${args.length} given)`);
    items.push(args[0]!);
    return new NullValue(null);
  }
  if (items.length === 0) throw new Error("pop from empty list");
  const at = args.length === 0 ? items.length - 1 : Number(args[0]!.value);
  const index = at < 0 ? items.length + at : at;
  if (!(index >= 0 && index < items.length)) throw new Error("pop index out of range");
  return items.splice(index, 1)[0]!;
}

// str.strip/lstrip/rstrip([chars]): the library ignores `chars` and strips all whitespace, so
// Qwen3's `reasoning_content.strip('\n')` would also eat spaces.
function pyStrip(s: string, chars: string | undefined, left: boolean, right: boolean): string {
  const strip = (c: string) => (chars === undefined ? /\s/.test(c) : chars.includes(c));
  const cps = [...s];
  let a = 0;
  let b = cps.length;
  if (left) while (a < b && strip(cps[a]!)) a++;
  if (right) while (b > a && strip(cps[b - 1]!)) b--;
  return cps.slice(a, b).join("");
}

function pyStr(v: RuntimeValue): string {
  switch (v.type) {
    case "StringValue":
      return v.value as string;
    case "UndefinedValue":
      return "";
    default:
      return pyRepr(v);
  }
}

function pyRepr(v: RuntimeValue): string {
  switch (v.type) {
    case "StringValue":
      return pyReprString(v.value as string);
    case "IntegerValue":
      return Number.isSafeInteger(v.value) ? String(v.value) : BigInt(v.value as number).toString();
    case "FloatValue":
      return pyFloat(v.value as number);
    case "BooleanValue":
      return v.value ? "True" : "False";
    case "NullValue":
      return "None";
    case "UndefinedValue":
      return "";
    case "ArrayValue":
      return `[${(v.value as RuntimeValue[]).map(pyRepr).join(", ")}]`;
    case "TupleValue": {
      const items = (v.value as RuntimeValue[]).map(pyRepr);
      return items.length === 1 ? `(${items[0]},)` : `(${items.join(", ")})`;
    }
    case "ObjectValue":
    case "KeywordArgumentsValue":
      return `{${[...(v.value as Map<string, RuntimeValue>)].map(([k, x]) => `${pyReprString(k)}: ${pyRepr(x)}`).join(", ")}}`;
    case "NamespaceValue":
      return `<Namespace ${[...(v.value as Map<string, RuntimeValue>)].map(([k, x]) => `${pyReprString(k)}: ${pyRepr(x)}`).join(", ")}>`;
    default:
      return v.toString();
  }
}

// --- strftime (C locale, as Python's default) ------------------------------------------------

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
function strftime(d: Date, format: string): string {
  const p2 = (n: number) => String(n).padStart(2, "0");
  return format.replace(/%([a-zA-Z%])/g, (token, c: string) => {
    switch (c) {
      case "Y":
        return String(d.getFullYear());
      case "y":
        return p2(d.getFullYear() % 100);
      case "m":
        return p2(d.getMonth() + 1);
      case "d":
        return p2(d.getDate());
      case "e":
        return String(d.getDate()).padStart(2, " ");
      case "B":
        return MONTHS[d.getMonth()]!;
      case "b":
        return MONTHS[d.getMonth()]!.slice(0, 3);
      case "A":
        return DAYS[d.getDay()]!;
      case "a":
        return DAYS[d.getDay()]!.slice(0, 3);
      case "H":
        return p2(d.getHours());
      case "I":
        return p2(((d.getHours() + 11) % 12) + 1);
      case "p":
        return d.getHours() < 12 ? "AM" : "PM";
      case "M":
        return p2(d.getMinutes());
      case "S":
        return p2(d.getSeconds());
      case "%":
        return "%";
      default:
        return token;
    }
  });
}
