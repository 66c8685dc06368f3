// The rules of tool_choice, one function each. The library's options (options.ts, resolveRequest),
// the three HTTP request readers (src/server/), the engine and the gateway ask these; none of them
// decides a rule itself. Each reader keeps its own spelling of a refusal (its field names, its
// choice's shape); the rule that refuses is decided here.
import { ToolDefinitionError, type ToolChoice, type ToolDef } from "./tools.js";

/** What a request's toolChoice asks for. */
export type ChoiceMode = "auto" | "required" | "none" | "named";

/** A named choice: `{type: "function", function: {name}}` with a string name. */
function isNamed(choice: unknown): choice is Extract<ToolChoice, object> {
  if (typeof choice !== "object" || choice === null) return false;
  const c = choice as { type?: unknown; function?: { name?: unknown } };
  return c.type === "function" && typeof c.function?.name === "string";
}

/** The mode `choice` asks for (absent: "auto"); anything but the four is refused. */
export function choiceMode(choice: unknown): ChoiceMode {
  if (choice === undefined || choice === "auto") return "auto";
  if (choice === "required" || choice === "none") return choice;
  if (isNamed(choice)) return "named";
  throw new ToolDefinitionError(
    `toolChoice must be "auto", "required", "none" or {type:"function", function:{name}}, got ${JSON.stringify(choice)}`,
  );
}

/** "required" and a named tool ask for a call: the answer must hold one, so a tool must be declared. */
export function requiresCall(mode: ChoiceMode): boolean {
  return mode === "required" || mode === "named";
}

/** "none" turns calls off: no call is masked for, and call text is content. */
export function callsOff(mode: ChoiceMode): boolean {
  return mode === "none";
}

/** Why a choice cannot be had with tools of these names, if it cannot. */
export type ToolChoiceProblem = { rule: "needs-tools" } | { rule: "undeclared"; name: unknown };

/**
 * The rules between a choice (`mode`, and for "named" the `name` as given) and the declared
 * tools' `names`: a choice that requires a call needs a declared tool; a named tool must be one of
 * those declared. The first rule is asked first: a named choice with no tools at all needs tools.
 */
export function toolChoiceProblem(
  mode: ChoiceMode,
  names: readonly string[],
  name?: unknown,
): ToolChoiceProblem | undefined {
  if (requiresCall(mode) && names.length === 0) return { rule: "needs-tools" };
  if (mode === "named" && !(typeof name === "string" && names.includes(name))) return { rule: "undeclared", name };
  return undefined;
}

/** The name a named choice names (undefined for the other choices). */
export function choiceName(choice: unknown): string | undefined {
  return isNamed(choice) ? choice.function.name : undefined;
}

/** The tools a call may name under `choice`: every declared one, the named one, or none ("none"). */
export function allowedTools(declared: ToolDef[], choice: ToolChoice | undefined): ToolDef[] {
  const mode = choiceMode(choice);
  if (callsOff(mode)) return [];
  if (mode === "named") return declared.filter((t) => t.name === choiceName(choice));
  return declared;
}

/** The tool a call naming `name` calls, when the request allows it (the parser and the verifier ask this). */
export function allowedTool(r: { tools: readonly ToolDef[] }, name: string): ToolDef | undefined {
  return r.tools.find((t) => t.name === name);
}

/** Why a call naming `name`, a tool the request does not allow, is refused (the verifier's reason). */
export function notAllowedReason(r: { declared: readonly ToolDef[] }, name: string): string {
  return r.declared.some((t) => t.name === name)
    ? `"${name}" is not allowed by tool_choice`
    : `"${name}" is not a declared tool`;
}

/**
 * Why an answer that has ended does not meet its request's tool choice, if it does not: the choice
 * requires a call ("required", a named tool) and the answer holds none (`calls`: its valid calls
 * and its entries, an invalid, cut or dropped call carrying a verdict of its own), and it was not
 * cut at the token limit (a cut answer is "length", whatever it holds).
 */
export function unmetChoice(
  r: { toolChoice: ChoiceMode; tools: readonly ToolDef[] },
  calls: number,
  finish: "stop" | "tool_calls" | "length",
): string | undefined {
  if (!requiresCall(r.toolChoice) || calls > 0 || finish === "length") return undefined;
  return r.toolChoice === "named"
    ? `tool_choice names "${r.tools[0]?.name}", so the answer must call it`
    : 'tool_choice "required" asks for a call';
}
