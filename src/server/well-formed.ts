// JSON may carry lone surrogates ("\ud800" escapes with no partner): strings that are not Unicode
// text. Tool definitions become grammars, which hold Unicode text only, so the request validator
// refuses such a string there and names where it is. The walk is iterative, and skipped for a body
// whose text holds no surrogate escape (noteParsedBody): only an escape makes a lone surrogate.

import { invalidParam } from "./errors.js";

/** A high surrogate without a low one after it, or a low one without a high one before it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A step of a path: the key or index under the step above it (built into text only for a refusal). */
interface Step {
  up: Step | undefined;
  key: string | number;
}

const keyText = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`);

function pathText(where: string, step: Step | undefined): string {
  const parts: string[] = [];
  for (let s = step; s; s = s.up) parts.push(typeof s.key === "number" ? `[${s.key}]` : keyText(s.key));
  return where + parts.reverse().join("");
}

/** The JSON path of the first string (value or key) in `value` that is not well-formed, or undefined. */
export function illFormedAt(value: unknown, where: string): string | undefined {
  // Paths are kept as steps and spelled only for the string refused: a walk over a million values
  // builds no strings (spelling every path took longer than parsing the body).
  const stack: Array<[unknown, Step | undefined]> = [[value, undefined]];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (typeof v === "string") {
      if (LONE_SURROGATE.test(v)) return pathText(where, at);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const item = v[i];
        if (item !== null && (typeof item === "object" || typeof item === "string"))
          stack.push([item, { up: at, key: i }]);
      }
    } else if (v !== null && typeof v === "object") {
      const keys = Object.keys(v);
      for (const k of keys)
        if (LONE_SURROGATE.test(k)) return `${pathText(where, at)}[${JSON.stringify(k)}] (the property name)`;
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        const item = (v as Record<string, unknown>)[k];
        if (item !== null && (typeof item === "object" || typeof item === "string"))
          stack.push([item, { up: at, key: k }]);
      }
    }
  }
  return undefined;
}

/** A `\ud800`–`\udfff` escape, or text that merely looks like one (`\\ud800`): where a lone surrogate could come from. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** Values parsed from text with no surrogate escape at all: none of their strings can be ill-formed. */
const escapeFree = new WeakSet<object>();

/**
 * Notes that `body` was parsed from `text` (valid UTF-8, which holds no surrogate): without a
 * surrogate escape in the text, no string in it is ill-formed, and refuseIllFormed has nothing to
 * walk for the body's fields (walking 700,000 strings took longer than parsing them).
 */
export function noteParsedBody(body: unknown, text: string): void {
  if (body === null || typeof body !== "object" || SURROGATE_ESCAPE.test(text)) return;
  escapeFree.add(body);
  for (const v of Object.values(body)) if (v !== null && typeof v === "object") escapeFree.add(v);
}

/** A 400 naming the first string in `value` (the request's field `where`) that is not well-formed. */
export function refuseIllFormed(value: unknown, where: string): void {
  if (value !== null && typeof value === "object" && escapeFree.has(value)) return;
  const bad = illFormedAt(value, where);
  if (bad !== undefined)
    throw invalidParam(
      bad,
      `${bad} holds a lone surrogate (a \\ud800–\\udfff escape without its pair), which is not Unicode text; send well-formed strings`,
    );
}
