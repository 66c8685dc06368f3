// How deep a request's JSON may nest. Everything downstream of the body walks values recursively
// somewhere (JSON.stringify, the chat template's tojson, the schema lowering): past a few thousand
// levels that overflows the stack ("Maximum call stack size exceeded"), and JSON.parse itself takes
// seconds on a body nested millions deep. So the text is scanned before it is parsed: one pass,
// linear, that stops at the first level past the limit and names where it is. The same scan reads
// JSON carried in strings (tool-call arguments) before they are parsed.
import { invalidParam } from "./errors.js";

/** Arrays and objects nested in one another, counted from the value scanned (a body: from its root object). */
export const MAX_NESTING = 512;
/** Levels of the path a refusal names (deeper levels are "…"): enough to name the field. */
const NAMED_LEVELS = 6;

interface Level {
  array: boolean;
  /** Elements before the current one (arrays). */
  index: number;
  /** The current key's string, as [start, end] offsets of its quoted text (objects). */
  key: [number, number] | undefined;
  /** The last string read at this level: the key, once a ":" follows it. */
  last: [number, number] | undefined;
}

export interface TooDeep {
  /** Offset (UTF-16 units) of the bracket that opened the first level past the limit. */
  offset: number;
  /** The path of the first levels to it, from the scanned value (e.g. `tools[0].function.parameters`). */
  path: string;
}

/**
 * Where JSON `text` first nests arrays and objects more than `limit` deep, or undefined. Strings are
 * skipped with their escapes; text that is not JSON is scanned as far as it goes (JSON.parse then
 * says what is wrong with it).
 */
export function tooDeep(text: string, limit = MAX_NESTING): TooDeep | undefined {
  const levels: Level[] = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      // The closing quote: the next one not escaped (preceded by an even run of backslashes).
      for (;;) {
        const q = text.indexOf('"', i + 1);
        if (q < 0) return undefined;
        let b = q - 1;
        while (text.charCodeAt(b) === 0x5c) b--;
        i = q;
        if ((q - 1 - b) % 2 === 0) break;
      }
      if (depth <= NAMED_LEVELS && depth > 0) levels[depth - 1]!.last = [start, i];
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return { offset: i, path: pathOf(text, levels.slice(0, Math.min(depth - 1, NAMED_LEVELS))) };
      if (depth <= NAMED_LEVELS) levels[depth - 1] = { array: c === 0x5b, index: 0, key: undefined, last: undefined };
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    } else if (depth > 0 && depth <= NAMED_LEVELS) {
      const level = levels[depth - 1]!;
      if (c === 0x2c && level.array) level.index++;
      else if (c === 0x3a && !level.array) level.key = level.last;
    }
  }
  return undefined;
}

function pathOf(text: string, levels: Level[]): string {
  let out = "";
  for (const level of levels) {
    if (level.array) out += `[${level.index}]`;
    else {
      let key = "?";
      if (level.key) {
        try {
          key = JSON.parse(text.slice(level.key[0], level.key[1] + 1)) as string;
        } catch {
          /* not a JSON string: "?" */
        }
      }
      out += /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}

/**
 * Throws a 400 naming where JSON `text` (the request body when `where` is undefined, else the field
 * `where` whose string holds JSON) nests more than MAX_NESTING levels deep.
 */
export function refuseDeep(text: string, where?: string): void {
  const deep = tooDeep(text);
  if (!deep) return;
  const sub = deep.path.replace(/^\./, "");
  const at = where === undefined ? sub || "body" : `${where}${deep.path}`;
  const inside = where === undefined ? "the request body" : where;
  throw invalidParam(
    at,
    `${at}… nests arrays and objects more than ${MAX_NESTING} levels deep (level ${MAX_NESTING + 1} opens at character ${deep.offset} of ${inside}); this server reads JSON at most ${MAX_NESTING} levels deep; send flatter JSON`,
    "nesting_too_deep",
  );
}
