// The Responses API's `tools`, as this server offers them to the model and routes the model's calls
// back. Each tool the model can call is offered as a function (the dialect's call syntax, the
// grammar, the prompt), under the name it calls it by; `routes` says what item its call comes back
// as:
// - `function`: a function_call item;
// - `namespace`: its functions are offered as `<namespace>__<name>` (Codex's flat form of a
//   namespaced name, ToolName::canonical_flat_name in openai/codex codex-rs/protocol/src/tool_name.rs:
//   "_" trimmed from the namespace's end and the name's start) and come back as a function_call
//   item with `name` the function's own name and `namespace` the namespace's — as OpenAI's
//   ResponseFunctionToolCall carries them, and as Codex routes them (codex-rs/core/src/tools/
//   router.rs, build_tool_call: ToolName::new(namespace, name));
// - `custom`: offered as a function of one string argument `input`, constrained by the tool's
//   format (text: any string; a regex or a Lark grammar: custom-format.ts), and come back as a
//   custom_tool_call item carrying that string as `input`;
// - `tool_search` with `execution: "client"`: Codex runs it itself (its SSE reader takes a
//   tool_search_call item with execution "client" and arguments as an object, codex-rs/codex-api/
//   src/sse/responses.rs), so it is offered as a function named `tool_search` with the tool's
//   `parameters` (any object when none), and comes back as a tool_search_call item.
// The tools a tool_search_output item in `input` loads are offered the same way (after the declared
// ones; a declared tool of the same name wins). Hosted tools (HOSTED: web search, file search, code
// interpreter, … and a tool_search the server would run) are tools this server cannot run: they are left out of the grammar and the prompt, the
// request is answered, and the Response's `toolmask.tools_not_offered` lists them. A type that is
// neither is a 400 naming it.
import { invalidParam } from "../errors.js";
import { given, isObj, kind, shown, type Obj } from "../values.js";
import { refuseIllFormed } from "../well-formed.js";
import { customInputSchema } from "./custom-format.js";

/** A tool as generate() takes it (the chat-completions shape). */
export interface Tool {
  type: "function";
  function: { name: string; parameters: Obj; description?: string };
}

export type CallRoute =
  | { kind: "function"; name: string; namespace?: string }
  | { kind: "custom"; name: string; namespace?: string }
  | { kind: "tool_search" };

/** A tool the request declares that the model is not offered, and why. */
export interface NotOffered {
  /** Where the tool is in the request: `tools[8]`. */
  path: string;
  type: string;
  reason: string;
}

export interface DeclaredTools {
  /** The tools as the Response repeats them: as sent. */
  echo: Obj[];
  /** What the model is offered, in the chat-completions shape generate() takes. */
  offered: Tool[];
  /** Where each offered tool is in the request (`tools[4].tools[1]`), by its index in `offered`. */
  paths: string[];
  /** By the name the model calls: what the call comes back as. */
  routes: Map<string, CallRoute>;
  notOffered: NotOffered[];
}

/** Tool types OpenAI runs on its side; this server runs none of them. */
export const HOSTED = new Set([
  "web_search",
  "web_search_2025_08_26",
  "web_search_preview",
  "web_search_preview_2025_03_11",
  "file_search",
  "code_interpreter",
  "image_generation",
  "computer",
  "computer_use",
  "computer_use_preview",
  "mcp",
  "local_shell",
  "shell",
  "apply_patch",
]);

const SHAPES =
  'function {"type": "function", "name", "parameters"}, namespace {"type": "namespace", "name", "tools"}, custom {"type": "custom", "name", "format"} or tool_search {"type": "tool_search", "execution": "client"}';

/** Codex's flat form of a namespaced name (ToolName::canonical_flat_name). */
export const flatName = (namespace: string, name: string): string =>
  `${namespace.replace(/_+$/, "")}__${name.replace(/^_+/, "")}`;

function name(t: Obj, w: string): string {
  if (typeof t.name !== "string" || t.name === "")
    throw invalidParam(`${w}.name`, `${w}.name must be a non-empty string, got ${shown(t.name)}`);
  return t.name;
}

function description(t: Obj, w: string): string | undefined {
  if (given(t.description) && typeof t.description !== "string")
    throw invalidParam(`${w}.description`, `${w}.description must be a string`, "invalid_type");
  return typeof t.description === "string" && t.description !== "" ? t.description : undefined;
}

function parameters(t: Obj, w: string): Obj {
  const p = given(t.parameters) ? t.parameters : { type: "object", properties: {} };
  if (!isObj(p))
    throw invalidParam(
      `${w}.parameters`,
      `${w}.parameters must be a JSON schema object, got ${kind(p)}`,
      "invalid_type",
    );
  return p;
}

const fn = (callName: string, params: Obj, desc: string | undefined): Tool => ({
  type: "function",
  function: { name: callName, parameters: params, ...(desc ? { description: desc } : {}) },
});

/** Checks `tools` and says how each is offered. */
export function declaredTools(v: unknown, loaded: LoadedTool[] = []): DeclaredTools {
  const out: DeclaredTools = { echo: [], offered: [], paths: [], routes: new Map(), notOffered: [] };
  if (!given(v) && loaded.length === 0) return out;
  if (given(v) && !Array.isArray(v))
    throw invalidParam("tools", `tools must be an array of tools (${SHAPES}), got ${kind(v)}`, "invalid_type");
  const where = new Map<string, string>(); // call name → the tool that holds it
  const offer = (callName: string, w: string, tool: Tool, route: CallRoute) => {
    const other = where.get(callName);
    if (other)
      throw invalidParam(
        w,
        `${w} is called ${shown(callName)} by the model, as ${other} is; give each tool a name of its own`,
      );
    where.set(callName, w);
    out.offered.push(tool);
    out.paths.push(w);
    out.routes.set(callName, route);
  };
  const member = (t: unknown, w: string, namespace?: string) => {
    if (!isObj(t)) throw invalidParam(w, `${w} must be a tool object (${SHAPES}), got ${kind(t)}`, "invalid_type");
    if (t.type === "function") {
      if (isObj(t.function))
        throw invalidParam(
          w,
          `${w} is in the chat-completions shape; the Responses API declares {"type": "function", "name", "parameters"} without a "function" wrapper`,
        );
      const n = name(t, w);
      if (given(t.strict) && typeof t.strict !== "boolean")
        throw invalidParam(`${w}.strict`, `${w}.strict must be true or false`, "invalid_type");
      const callName = namespace === undefined ? n : flatName(namespace, n);
      offer(callName, w, fn(callName, parameters(t, w), description(t, w)), {
        kind: "function",
        name: n,
        ...(namespace === undefined ? {} : { namespace }),
      });
      return true;
    }
    if (t.type === "custom") {
      const n = name(t, w);
      const callName = namespace === undefined ? n : flatName(namespace, n);
      offer(callName, w, fn(callName, customInputSchema(t.format, w, n), description(t, w)), {
        kind: "custom",
        name: n,
        ...(namespace === undefined ? {} : { namespace }),
      });
      return true;
    }
    return false;
  };
  /** One top-level tool at `w`; `loaded`: from a tool_search_output, skipped where a tool of its name is declared. */
  const take = (t: unknown, w: string, loaded: boolean) => {
    if (loaded && isObj(t) && t.type !== "namespace" && typeof t.name === "string" && where.has(t.name)) return;
    if (isObj(t) && t.type === "namespace") {
      const ns = name(t, w);
      description(t, w);
      if (!Array.isArray(t.tools) || t.tools.length === 0)
        throw invalidParam(
          `${w}.tools`,
          `${w}.tools must be a non-empty array of function or custom tools, got ${kind(t.tools)}`,
          "invalid_type",
        );
      t.tools.forEach((m, j) => {
        if (loaded && isObj(m) && typeof m.name === "string" && where.has(flatName(ns, m.name))) return;
        if (!member(m, `${w}.tools[${j}]`, ns))
          throw invalidParam(
            `${w}.tools[${j}].type`,
            `${w}.tools[${j}].type ${shown(isObj(m) ? m.type : m)} is not supported in a namespace: it holds function and custom tools`,
            "unsupported_value",
          );
      });
    } else if (isObj(t) && t.type === "tool_search" && t.execution === "client") {
      offer("tool_search", w, fn("tool_search", parameters(t, w), description(t, w)), { kind: "tool_search" });
    } else if (isObj(t) && typeof t.type === "string" && (HOSTED.has(t.type) || t.type === "tool_search")) {
      out.notOffered.push({
        path: w,
        type: t.type,
        reason: `${t.type} is a hosted tool (${t.type === "tool_search" ? "execution other than client: run by the server" : "run by the server"}); this server runs none, so the model is not offered it`,
      });
    } else if (!member(t, w)) {
      throw invalidParam(
        isObj(t) ? `${w}.type` : w,
        `${w}${isObj(t) ? `.type ${shown(t.type)}` : ""} is not supported: this server takes ${SHAPES}, and leaves out the hosted tools it cannot run (${[...HOSTED].slice(0, 4).join(", ")}, …)`,
        isObj(t) ? "unsupported_value" : "invalid_type",
      );
    }
  };
  (Array.isArray(v) ? v : []).forEach((t, i) => {
    take(t, `tools[${i}]`, false);
    out.echo.push(t as Obj);
  });
  for (const { tool, path } of loaded) {
    refuseIllFormed(tool, path);
    take(tool, path, true);
  }
  if (given(v)) refuseIllFormed(v, "tools");
  return out;
}

/** A tool a tool_search_output item in `input` loads, and where it is. */
export interface LoadedTool {
  tool: unknown;
  path: string;
}

/**
 * The tools the input's tool_search_output items load (OpenAI: "the loaded tool definitions returned
 * by tool search"): offered with the declared tools, a declared tool of the same name winning.
 */
export function loadedTools(input: unknown): LoadedTool[] {
  if (!Array.isArray(input)) return [];
  return input.flatMap((item, i) =>
    isObj(item) && item.type === "tool_search_output" && Array.isArray(item.tools)
      ? item.tools.map((tool, j) => ({ tool, path: `input[${i}].tools[${j}]` }))
      : [],
  );
}
