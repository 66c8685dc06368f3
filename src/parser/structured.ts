// The parser's verdict on an answer's content under a response format: checked by the grammar node
// the mask used (src/dialects/grammar-content.ts; with JSON whitespace after the value also taken),
// then read as exact JSON. Decided at the end of
// the output on the content as a whole, so every split of the bytes gets the same verdict.
import { responseFormatNode } from "../dialects/grammar-content.js";
import type { ResolvedResponseFormat } from "../dialects/response-format.js";
import { readExactJson } from "./exact-json.js";
import { valueFault } from "./json-value.js";
import { readValue } from "./read-value.js";
import type { StructuredVerdict } from "./types.js";
import { grammarAccepts } from "./validate.js";

/**
 * The verdict on an answer's `content` (null: none) with `calls` calls (complete, invalid or
 * dropped), ended by `finishReason`,
 * and the content's value when it is valid and a plain JS value holds it as written.
 */
export function structuredVerdict(
  f: ResolvedResponseFormat,
  content: string | null,
  finishReason: "stop" | "length",
  calls: number,
): { verdict: StructuredVerdict; value?: unknown } {
  // A cut answer is never given as a value, whatever its text holds.
  if (finishReason === "length")
    return { verdict: { status: "cut", reason: "the output ended at maxTokens before the answer did" } };
  if (calls > 0) return { verdict: { status: "calls" } };
  const text = content ?? "";
  if (!grammarAccepts(responseFormatNode(f), text)) {
    const what = f.type === "json_object" ? "a JSON object" : `the schema at ${f.path}`;
    return {
      verdict: {
        status: "invalid",
        reason:
          text.trim() === "" ? "the answer has no content" : `the content is not one JSON value that fits ${what}`,
      },
    };
  }
  // A key given twice, or a number past a double's range, makes the answer invalid, as it makes a
  // call invalid (valueFault): the grammar cannot count a free-form object's keys.
  const fault = valueFault(readValue(text, "json"));
  if (fault !== undefined) return { verdict: { status: "invalid", reason: fault } };
  const read = readExactJson(text);
  if ("error" in read)
    return {
      verdict: { status: "valid", reason: `the content fits, but no plain value holds it as written: ${read.error}` },
    };
  return { verdict: { status: "valid" }, value: read.value };
}
