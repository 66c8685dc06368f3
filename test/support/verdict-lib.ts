// The library's parts scripts/lib/call-verdicts.mjs and parser-fuzz.mjs take as `lib`, from src/.
import { buildToolGrammar, parseToolCalls, ToolCallStreamParser } from "../../src/index.js";
import { callTriggerOf, triggerOf } from "../../src/dialects/spec.js";
import { grammarAcceptor, grammarAccepts } from "../../src/parser/validate.js";

export const verdictLib = {
  ToolCallStreamParser,
  parseToolCalls,
  buildToolGrammar,
  grammarAccepts,
  grammarAcceptor,
  triggerOf,
  callTriggerOf,
};
