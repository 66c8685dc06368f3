// An upstream's JSON (a whole answer, or one stream event's data), read by JSON.parse and looked at
// as written for keys given twice (parser/json-scan.ts): JSON.parse keeps a repeated key's last
// value and says nothing, so `{"tool_calls": [A], "tool_calls": [B]}` would be read as B. A key
// given twice inside one of the engine's calls (at the path its adapter names, callsAt) makes that
// call malformed, so verify-calls.ts reports it invalid, as a call of any other wrong shape; a key
// given twice anywhere else, or a call's `index` given twice (which call a fragment continues is
// then unknown), refuses the answer: an UpstreamError naming the key and where it stands (a 502).
// The scan costs about what JSON.parse does on an answer of text, about three times as much on one
// of many small objects (docs/reliability.md).
import { duplicateKeys, givenTwice, pathText, valueTextAt, type JsonPath } from "../parser/json-scan.js";
import type { CallsAsSent } from "./engines/types.js";
import { UpstreamError } from "./pool.js";

/** Most characters of a call's text an invalid entry carries. */
const CALL_TEXT_MAX = 2000;

/**
 * The value of `text` (`what`: "an answer", "a stream event") and its calls as sent, those at
 * `callsAt` (the path of the engine's calls array; undefined: the engine sends no calls).
 * Throws an UpstreamError when the text is not JSON, or gives a key twice outside a call.
 */
export function readUpstreamJson(
  text: string,
  what: string,
  url: string,
  callsAt: JsonPath | undefined,
): { value: unknown; calls: CallsAsSent } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UpstreamError(`${url} sent ${what} that is not JSON: ${(err as Error).message}; ${text.slice(0, 200)}`);
  }
  const malformed = new Map<number, string>();
  for (const d of duplicateKeys(text)) {
    const position = callsAt && within(d.path, callsAt) ? d.path[callsAt.length] : undefined;
    if (typeof position === "number" && !(d.path.length === callsAt!.length + 1 && d.key === "index")) {
      const where = pathText([callsAt![callsAt!.length - 1]!, ...d.path.slice(callsAt!.length)]);
      if (!malformed.has(position))
        malformed.set(position, `the key ${JSON.stringify(d.key)} is given twice in ${where}`);
      continue;
    }
    throw new UpstreamError(
      `${url} sent ${what} that ${givenTwice(d)}; JSON.parse would keep the last one, so which is meant is unknown`,
    );
  }
  return {
    value,
    calls: {
      malformed,
      text: (position) => (callsAt ? valueTextAt(text, [...callsAt, position])?.slice(0, CALL_TEXT_MAX) : undefined),
    },
  };
}

/** Whether `path` lies inside the value at `prefix`. */
function within(path: JsonPath, prefix: JsonPath): boolean {
  return path.length > prefix.length && prefix.every((s, i) => path[i] === s);
}
