// An opening call (DialectSpec.openingCalls) once its head named the tool: the JSON call object
// read as every JSON call is (scanJson, the head already decided), then its wrapper's close after
// JSON whitespace. A close that never comes is a cut call at the end of the output and an invalid
// one where other text stands there: never a complete call.
import { JSON_WS_MAX } from "../grammar/json-schema/syntax.js";
import type { ResolvedRequest } from "../dialects/options.js";
import type { CallWrapper, JsonCallFormat } from "../dialects/spec.js";
import type { CallMemo, CallScan } from "./calls.js";
import { FAIL, matchGlue, NEED } from "./glue.js";
import { scanJson } from "./json-call.js";
import { isJsonWs } from "./json-ws.js";
import type { Text } from "./text.js";

/** The options with the dialect's call format as a bare object (no markers around it): how an opening call's object is read. */
export function bareObjectOptions(o: ResolvedRequest): ResolvedRequest {
  const f = o.spec.call as JsonCallFormat;
  return { ...o, spec: { ...o.spec, call: { ...f, open: [], close: [] } } };
}

/**
 * The call whose object starts at `start` (its "{"), in `wrapper`; its head named the tool
 * (`memo.head`, set when the head was read). `bare`: bareObjectOptions.
 */
export function scanOpening(
  text: Text,
  start: number,
  bare: ResolvedRequest,
  final: boolean,
  memo: CallMemo,
  wrapper: CallWrapper,
): CallScan {
  const s = scanJson(text, start, bare, final, memo);
  if (s.status !== "done" || wrapper.close.length === 0) return s;
  const { end: _end, invalid: _invalid, ...read } = s;
  const objectEnd = s.end!;
  let k = objectEnd;
  while (k < text.length && k - objectEnd <= JSON_WS_MAX && isJsonWs(text.charCodeAt(k))) k++;
  const c = k - objectEnd > JSON_WS_MAX ? FAIL : matchGlue(text, k, wrapper.close, final);
  if (c === NEED) return { ...read, status: "need", cutAt: "the fence's close" };
  if (c === FAIL) {
    const close = wrapper.close.map((p) => (typeof p === "string" ? p : p.optional)).join("");
    return { ...s, invalid: s.invalid ?? `the call's closing ${JSON.stringify(close)} is missing after the object` };
  }
  return { ...s, end: c };
}
