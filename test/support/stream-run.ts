// Feeding an output to the stream parser at given cut points, and the event stream as a client
// assembles it: what chunk-invariance tests compare (scripts/lib/parser-runs.mjs, on src/).
import { resolveRequest, ToolCallStreamParser, type ParserInput, type ResolvedRequest } from "../../src/index.js";
import { mergedEvents, runChunks as runWith } from "../../scripts/lib/parser-runs.mjs";

export { mergedEvents };

/**
 * Each options object resolved once for the many runs a test makes with it (a parser given plain
 * options resolves them and checks the tools' limits each time): the options' own fields
 * (maxCallLength, finishReason) kept beside the resolved request's.
 */
const resolved = new WeakMap<object, ResolvedRequest>();
function once(options: ParserInput): ParserInput {
  let r = resolved.get(options);
  if (!r) resolved.set(options, (r = { ...options, ...resolveRequest(options) }));
  return r;
}

/** The result and merged events of feeding `text` split at `cuts` (ascending offsets). */
export function runChunks(text: string, options: ParserInput, cuts: number[]) {
  return runWith(ToolCallStreamParser, text, once(options), cuts);
}
