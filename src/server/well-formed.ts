// JSON may carry lone surrogates ("\ud800" escapes with no partner): strings that are not Unicode
// text. Tool definitions become grammars, which hold Unicode text only, so the request validator
// refuses such a string there and names where it is. The walk is iterative: a body nested
// hundreds of thousands deep (JSON.parse takes it) cannot overflow the stack here.

import { invalidParam } from "./errors.js";

/** A high surrogate without a low one after it, or a low one without a high one before it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The JSON path of the first string (value or key) in `value` that is not well-formed, or undefined. */
export function illFormedAt(value: unknown, where: string): string | undefined {
  const stack: Array<[unknown, string]> = [[value, where]];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (typeof v === "string") {
      if (LONE_SURROGATE.test(v)) return at;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${at}[${i}]`]);
    } else if (v !== null && typeof v === "object") {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, item] = entries[i]!;
        if (LONE_SURROGATE.test(k)) return `${at}[${JSON.stringify(k)}] (the property name)`;
        stack.push([item, /^[A-Za-z_$][\w$]*$/.test(k) ? `${at}.${k}` : `${at}[${JSON.stringify(k)}]`]);
      }
    }
  }
  return undefined;
}

/** A 400 naming the first string in `value` (the request's field `where`) that is not well-formed. */
export function refuseIllFormed(value: unknown, where: string): void {
  const bad = illFormedAt(value, where);
  if (bad !== undefined)
    throw invalidParam(
      bad,
      `${bad} holds a lone surrogate (a \\ud800–\\udfff escape without its pair), which is not Unicode text; send well-formed strings`,
    );
}
