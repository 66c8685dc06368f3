// Reads a Python literal (what Python's str() writes for JSON-like values) into the JS value:
// '…'/"…" strings with Python escapes, True/False/None, numbers, lists and dicts. The parser reads
// values with readValue (src/parser/read-value.ts), which keeps numbers as written; this is the
// same reader for callers that want plain JS values.
import { toPlain } from "./json-value.js";
import { readValue } from "./read-value.js";

/** The JS value of Python literal `text`; throws a SyntaxError naming the offset otherwise. */
export function readPythonLiteral(text: string): unknown {
  return toPlain(readValue(text, "python"));
}
