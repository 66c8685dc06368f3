// Feeding an output to the stream parser at given cut points, and the event stream as a client
// assembles it: what chunk-invariance tests compare (scripts/lib/parser-runs.mjs, on src/).
import { ToolCallStreamParser, type ParserInput } from "../../src/index.js";
import { mergedEvents, runChunks as runWith } from "../../scripts/lib/parser-runs.mjs";

export { mergedEvents };

/** The result and merged events of feeding `text` split at `cuts` (ascending offsets). */
export function runChunks(text: string, options: ParserInput, cuts: number[]) {
  return runWith(ToolCallStreamParser, text, options, cuts);
}
