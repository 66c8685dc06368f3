// The real-model suite's verdict on one answer, apart from toolmask's own grammar: every call's
// arguments are checked with ajv against the request's own schema, its name against the declared
// tools and the tool choice, the call count against parallel calls and the choice; a cut (the
// token limit reached without an end-of-generation token) must say so.
import Ajv2020Module from "ajv/dist/2020.js";

const Ajv = Ajv2020Module.default ?? Ajv2020Module;
const ajv = new Ajv({ strict: false, allErrors: false });
const validators = new Map();

/** ajv's validator of a tool's parameters schema (compiled once per schema text). */
function validatorOf(schema) {
  const key = JSON.stringify(schema);
  let v = validators.get(key);
  if (!v) validators.set(key, (v = ajv.compile(schema)));
  return v;
}

const nameOf = (t) => t.function?.name ?? t.name;
const paramsOf = (t) => t.function?.parameters ?? t.parameters ?? { type: "object", properties: {} };

/** What is wrong with one call under `request` ("" when nothing): declared, allowed, JSON, schema-valid. */
export function callProblem(call, request) {
  const name = call.function.name;
  const tool = request.tools.find((t) => nameOf(t) === name);
  if (!tool) return `call to ${JSON.stringify(name)}, which is not declared`;
  const c = request.toolChoice ?? "auto";
  if (c === "none") return `call to ${name} although tool_choice is "none"`;
  if (typeof c === "object" && c.function.name !== name)
    return `call to ${name} although tool_choice names ${c.function.name}`;
  let args;
  try {
    args = JSON.parse(call.function.arguments);
  } catch {
    return `arguments of ${name} are not JSON: ${call.function.arguments.slice(0, 80)}`;
  }
  const validate = validatorOf(paramsOf(tool));
  if (!validate(args)) {
    const e = validate.errors?.[0];
    return `arguments of ${name} fail its schema (ajv: ${e ? `${e.instancePath || "/"} ${e.message}` : "invalid"}): ${call.function.arguments.slice(0, 120)}`;
  }
  return "";
}

/** Every index where `needle` starts in `text`. */
function occurrences(text, needle) {
  const at = [];
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) at.push(i);
  return at;
}

/**
 * Whether `after` (the text after a call's opening) is a call naming none of `names`, decided at
 * its name as the parser decides it (docs/parity.md, undeclared-call): the model wrote a call to a
 * tool that does not exist, which stays content. `form`: { lead, closes } — a regular expression
 * (source) for the text before the name, and the strings that may end the name. Returns false, or
 * the offset in `after` just past the name's first character that no declared name (with a close)
 * continues: the call's text ends there, and an opening begun by that character is part of it.
 */
export function namesUndeclared(after, form, names) {
  const m = new RegExp(`^(?:${form.lead})`).exec(after);
  if (!m) return false;
  const rest = after.slice(m[0].length);
  const ends = form.closes.map((x) => rest.indexOf(x)).filter((k) => k >= 0);
  const undeclared = ends.length
    ? !names.includes(rest.slice(0, Math.min(...ends)))
    : !names.some((n) => n.startsWith(rest));
  if (!undeclared) return false;
  let common = 0;
  for (const w of names.flatMap((n) => form.closes.map((c) => n + c))) {
    let k = 0;
    while (k < w.length && k < rest.length && w[k] === rest[k]) k++;
    common = Math.max(common, k);
  }
  return m[0].length + Math.min(rest.length, common + (rest.codePointAt(common) > 0xffff ? 2 : 1));
}

/**
 * The verdict on `answer` ({ finishReason, toolCalls, incomplete, completionTokens, endedByModel,
 * text }) for `request` ({ tools, toolChoice, parallel, maxTokens, trigger? }; `trigger`: the
 * dialect's call-opening text, which under a choice that requires a call only whitespace may precede;
 * `callsAlone`: the dialect's answer with calls is one JSON object and nothing else (generic); the
 * answer's `content` is then checked to be whitespace; `opening`: { text, atStart, before?, headDecides? } where the
 * dialect opens a call — its trigger anywhere, or "{" at the answer's start where the call opens
 * the answer, after `before` (a regular expression's source: a fence's open) — which content must not hold: such text is a call the parser did not take, e.g. to
 * an undeclared tool, not an answer in words). `cut`: the model did not end
 * the answer and it holds maxTokens tokens. `valid`: a finished answer with only complete, declared,
 * schema-valid calls, as many as the choice and parallel calls allow. `problems`: what a masked
 * answer must not show (finished: anything invalid; cut: not reported as a cut, or a shipped call
 * that is not schema-valid).
 */
export function answerVerdict(answer, request) {
  const cut = !answer.endedByModel && answer.completionTokens >= request.maxTokens;
  const problems = [];
  const calls = answer.toolCalls;
  for (const call of calls) {
    const p = callProblem(call, request);
    if (p) problems.push(p);
  }
  const c = request.toolChoice ?? "auto";
  if (cut) {
    if (answer.finishReason !== "length")
      problems.push(`cut at ${request.maxTokens} tokens but finish_reason is ${answer.finishReason}`);
  } else {
    if (answer.incomplete.length > 0)
      problems.push(`finished with an incomplete call (${answer.incomplete[0].kind}: ${answer.incomplete[0].reason})`);
    const requires = c === "required" || typeof c === "object";
    if (requires && calls.length === 0) problems.push("finished without a call although the tool choice requires one");
    if (
      requires &&
      calls.length > 0 &&
      request.trigger !== undefined &&
      answer.text.indexOf(request.trigger) > 0 &&
      answer.text.slice(0, answer.text.indexOf(request.trigger)).trim() !== ""
    )
      problems.push("text before the first call although the tool choice requires the call to open the answer");
    const o = request.opening,
      content = answer.content ?? "";
    // Under "none" no call structure exists: any text is content, call-like JSON included.
    if (o && c !== "none") {
      const names = typeof c === "object" ? [c.function.name] : request.tools.map(nameOf);
      const lead = (i) => (o.before ? i + new RegExp(`^(?:${o.before})`).exec(content.slice(i))[0].length : i);
      const starts = o.atStart ? [lead(content.length - content.trimStart().length)] : occurrences(content, o.text);
      // An opening inside an undeclared call's name (begun by its departing character) is part of it.
      let inside = -1;
      const unread = starts.filter((i) => {
        if (i < inside || !content.startsWith(o.text, i)) return false;
        const after = content.slice(i + o.text.length);
        // Where the head decides, an object whose head is no call's (another key first) is text.
        if (o.headDecides && o.name && !new RegExp(`^(?:${o.name.lead})`).test(after)) return false;
        const end = o.name && namesUndeclared(after, o.name, names);
        if (typeof end === "number") {
          inside = i + o.text.length + end;
          return false;
        }
        return true;
      });
      if (unread.length)
        problems.push(
          `the content opens a call (${JSON.stringify(o.text)}) that was not read as one: markup the parser could not read, not a call to an undeclared tool`,
        );
    }
    if (request.callsAlone && calls.length > 0 && (answer.content ?? "").trim() !== "")
      problems.push("text beside the calls although the dialect's answer is its JSON object alone");
    if (request.parallel === false && calls.length > 1)
      problems.push(`${calls.length} calls although parallel calls are off`);
    const expect = calls.length > 0 ? "tool_calls" : "stop";
    if (answer.finishReason !== expect) problems.push(`finish_reason ${answer.finishReason}, expected ${expect}`);
  }
  return { cut, valid: !cut && problems.length === 0, calls: calls.length, problems };
}

/**
 * For a masked cut answer, whether the cut is reported where the output ended: when the grammar
 * says the text is not a complete answer (`replayComplete` false) and a call was opened (`trigger`
 * in the text, or calls reported), the parser must list a cut call. `trigger`: the dialect's
 * call-opening string, or undefined where it cannot be counted in text (a bare "{").
 */
export function cutProblem(answer, replayComplete, trigger) {
  if (replayComplete) return "";
  const opened = answer.toolCalls.length > 0 || (trigger !== undefined && answer.text.includes(trigger));
  if (!opened) return "";
  return answer.incomplete.some((c) => c.kind === "cut")
    ? ""
    : "the output ended inside a call but the parser lists no cut call";
}
