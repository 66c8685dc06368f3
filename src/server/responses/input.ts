// The Responses API's `input` (a string, or a list of items) and `instructions` as the OpenAI-shaped
// chat messages generate() renders with the model's chat template. Consecutive assistant-side items
// (reasoning, an assistant message, function_call) make one assistant message: its reasoning as
// reasoning_content, its text as content, its calls as tool_calls (call_id kept as the call's id);
// each function_call_output is a tool message answering a function_call given before it. A
// custom_tool_call is the call of its function with `input` as the one argument, a tool_search_call
// the call of `tool_search` with its arguments, a namespaced function_call the call of its flat name
// (tools.ts: the names the model was offered); custom_tool_call_output and tool_search_output (its
// `tools` as JSON) answer them as function_call_output does. Every refusal names the item it is
// about.
import type { ChatMessage } from "../../templates/render.js";
import { readExactJson } from "../../parser/exact-json.js";
import { invalidParam } from "../errors.js";
import { refuseDeep } from "../nesting.js";
import { promptList, refuseNoParts } from "../fields.js";
import { given, isObj, kind, shown, type Obj } from "../values.js";
import { flatName } from "./tools.js";

const ROLES = new Set(["user", "system", "developer", "assistant"]);
const ITEMS =
  "message, function_call, function_call_output, custom_tool_call, custom_tool_call_output, tool_search_call, tool_search_output and reasoning";

/** Text parts of one kind ("input_text", or "output_text" / "refusal" for the assistant), joined. */
function textParts(v: unknown, where: string, allowed: readonly string[]): string {
  if (typeof v === "string") return v;
  if (!Array.isArray(v))
    throw invalidParam(
      where,
      `${where} must be a string or an array of ${allowed.join(" / ")} parts, got ${kind(v)}`,
      given(v) ? "invalid_type" : "missing_required_parameter",
    );
  return v
    .map((part, k) => {
      const w = `${where}[${k}]`;
      if (!isObj(part) || typeof part.type !== "string" || !allowed.includes(part.type))
        throw invalidParam(
          `${w}.type`,
          `${w} must be a ${allowed.map((a) => `{"type": "${a}"}`).join(" or ")} part, got ${isObj(part) ? `type ${shown(part.type)}` : kind(part)}; this server reads text only`,
          "unsupported_value",
        );
      const text = part.type === "refusal" ? part.refusal : part.text;
      if (typeof text !== "string")
        throw invalidParam(
          `${w}.${part.type === "refusal" ? "refusal" : "text"}`,
          `${w}.${part.type === "refusal" ? "refusal" : "text"} must be a string, got ${kind(text)}`,
          "invalid_type",
        );
      return text;
    })
    .join("");
}

function nonEmpty(item: Obj, key: string, where: string, what: string): string {
  const v = item[key];
  if (typeof v !== "string" || v === "")
    throw invalidParam(
      `${where}.${key}`,
      `${where}.${key} must be ${what}, got ${shown(v)}`,
      given(v) ? "invalid_value" : "missing_required_parameter",
    );
  return v;
}

/** A reasoning item's text: its reasoning_text content when given, else its summary. */
function reasoningText(item: Obj, where: string): string {
  if (given(item.content)) return textParts(item.content, `${where}.content`, ["reasoning_text"]);
  if (!Array.isArray(item.summary))
    throw invalidParam(
      `${where}.summary`,
      `${where}.summary must be an array of {"type": "summary_text", "text"} parts, got ${kind(item.summary)}`,
      given(item.summary) ? "invalid_type" : "missing_required_parameter",
    );
  return textParts(item.summary, `${where}.summary`, ["summary_text"]);
}

/** A call item's name as the model called it: a namespaced function's flat name (tools.ts), `tool_search`. */
function callName(item: Obj, type: string, where: string): string {
  if (type === "tool_search_call") return "tool_search";
  const name = nonEmpty(item, "name", where, "the name of a tool");
  if (!given(item.namespace)) return name;
  return flatName(nonEmpty(item, "namespace", where, "the namespace the tool is in"), name);
}

/**
 * A call item's arguments as the prompt shows them: a function_call's (a JSON object string, read
 * as the prompt will show it: a repeated key or a number a double changes is refused), a
 * custom_tool_call's `input` as the one argument its function takes (tools.ts), a
 * tool_search_call's `arguments` object.
 */
function callArguments(item: Obj, type: string, where: string): string {
  if (type === "custom_tool_call") {
    if (typeof item.input !== "string")
      throw invalidParam(`${where}.input`, `${where}.input must be a string, got ${kind(item.input)}`, "invalid_type");
    return JSON.stringify({ input: item.input });
  }
  if (type === "tool_search_call") {
    if (!isObj(item.arguments))
      throw invalidParam(
        `${where}.arguments`,
        `${where}.arguments must be an object, got ${kind(item.arguments)}`,
        "invalid_type",
      );
    refuseDeep(JSON.stringify(item.arguments), `${where}.arguments`);
    return JSON.stringify(item.arguments);
  }
  const args = item.arguments;
  if (typeof args !== "string")
    throw invalidParam(
      `${where}.arguments`,
      `${where}.arguments must be a JSON object string, got ${kind(args)}`,
      "invalid_type",
    );
  refuseDeep(args, `${where}.arguments`);
  const read = args.trim() === "" ? { value: {} } : readExactJson(args);
  if ("error" in read && read.json)
    throw invalidParam(
      `${where}.arguments`,
      `${where}.arguments: ${read.error}; the prompt could not show them as sent`,
    );
  if (!("value" in read) || !isObj(read.value))
    throw invalidParam(`${where}.arguments`, `${where}.arguments must be a JSON object string, got ${shown(args)}`);
  return args;
}

/** A tool_search_output's tools as the tool's answer the model reads: their JSON. */
function foundTools(item: Obj, where: string): string {
  if (!Array.isArray(item.tools))
    throw invalidParam(
      `${where}.tools`,
      `${where}.tools must be an array of tools, got ${kind(item.tools)}`,
      "invalid_type",
    );
  return JSON.stringify(item.tools);
}

/** `input` and `instructions` as chat messages; at most `contextSize` items (each takes a token at least). */
export function inputMessages(input: unknown, instructions: unknown, contextSize: number): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (given(instructions)) {
    if (typeof instructions !== "string")
      throw invalidParam(
        "instructions",
        `instructions must be a string, got ${kind(instructions)}; send earlier turns in input`,
        "invalid_type",
      );
    if (instructions !== "") out.push({ role: "system", content: instructions });
  }
  if (typeof input === "string") {
    out.push({ role: "user", content: input });
    return out;
  }
  const items = promptList(input, "input", "a string or a non-empty array of items", "input items", contextSize);

  let turn: ChatMessage | undefined; // the assistant message being gathered
  const calls = new Map<string, string>(); // call_id → the type of the call item that has it, so far
  const answered = new Set<string>();
  const assistant = (): ChatMessage => {
    if (!turn) {
      turn = { role: "assistant", content: null };
      out.push(turn);
    }
    return turn;
  };
  items.forEach((item, i) => {
    const where = `input[${i}]`;
    if (!isObj(item))
      throw invalidParam(where, `${where} must be an item object (${ITEMS}), got ${kind(item)}`, "invalid_type");
    const type = item.type ?? (given(item.role) ? "message" : undefined);
    if (type === "message") {
      if (typeof item.role !== "string" || !ROLES.has(item.role))
        throw invalidParam(
          `${where}.role`,
          `${where}.role must be one of ${[...ROLES].join(", ")}, got ${shown(item.role)}`,
        );
      refuseNoParts(item.content, where);
      if (item.role === "assistant") {
        const said = textParts(item.content, `${where}.content`, ["output_text", "refusal", "input_text"]);
        const t = assistant();
        t.content = typeof t.content === "string" ? t.content + said : said;
        return;
      }
      turn = undefined;
      const role = item.role === "developer" ? "system" : item.role;
      out.push({ role, content: textParts(item.content, `${where}.content`, ["input_text"]) });
      return;
    }
    if (type === "reasoning") {
      const t = assistant();
      t.reasoning_content = `${typeof t.reasoning_content === "string" ? t.reasoning_content : ""}${reasoningText(item, where)}`;
      return;
    }
    if (type === "function_call" || type === "custom_tool_call" || type === "tool_search_call") {
      const id = nonEmpty(item, "call_id", where, `the call's id (its ${type}_output names it)`);
      if (calls.has(id))
        throw invalidParam(`${where}.call_id`, `${where}.call_id ${shown(id)} is used by another call item`);
      const args = callArguments(item, type, where);
      calls.set(id, type);
      const t = assistant();
      t.tool_calls = [
        ...(t.tool_calls ?? []),
        { id, type: "function", function: { name: callName(item, type, where), arguments: args } },
      ];
      return;
    }
    if (type === "function_call_output" || type === "custom_tool_call_output" || type === "tool_search_output") {
      const called = type.replace(/_output$/, "");
      const id = nonEmpty(item, "call_id", where, `the call_id of a ${called} item`);
      if (!calls.has(id))
        throw invalidParam(
          `${where}.call_id`,
          `${where}.call_id ${shown(id)} does not match a ${called} item before it; send the ${called} item in input too (this server keeps no earlier responses)`,
        );
      if (answered.has(id)) throw invalidParam(`${where}.call_id`, `${where}.call_id ${shown(id)} is answered twice`);
      answered.add(id);
      turn = undefined;
      const content =
        type === "tool_search_output"
          ? foundTools(item, where)
          : textParts(item.output, `${where}.output`, ["input_text"]);
      out.push({ role: "tool", tool_call_id: id, content });
      return;
    }
    throw invalidParam(
      `${where}.type`,
      `${where}.type ${shown(type)} is not supported by this server; it reads ${ITEMS} items${type === "item_reference" ? " (it keeps no earlier items: send them whole)" : ""}`,
      "unsupported_value",
    );
  });
  return out;
}
