// A custom tool's `format` as the JSON schema of the one string argument `input` the model writes
// its call with (responses/tools.ts offers a custom tool as a function of that argument): no format
// or `{type: "text"}`: any string; `{type: "grammar", syntax: "regex", definition}`: a string the
// regex matches whole (read by pattern.ts, the ECMAScript subset "pattern" takes); `{type:
// "grammar", syntax: "lark", definition}`: a string of the Lark grammar's language
// (grammar/lark-reader.ts). Both grammars become one anchored "pattern" (rx-source.ts), so the input is
// constrained by the same lowering as a schema's pattern, in every dialect's spelling of a string.
// A grammar this server cannot read is a 400 naming the tool and the construct.
import { rxSource } from "../../grammar/json-schema/rx-source.js";
import { parsePattern, patternRepetition, type Rx } from "../../grammar/json-schema/pattern.js";
import { GrammarLimitError } from "../../grammar/errors.js";
import { UnsupportedSchemaError } from "../../grammar/json-schema/errors.js";
import { LarkGrammarError, larkToRx } from "../../grammar/lark-reader.js";
import { invalidParam } from "../errors.js";
import { given, isObj, kind, shown, type Obj } from "../values.js";

/** Characters of a grammar's definition (Codex's apply_patch grammar is about 700). */
export const DEFINITION_LIMIT = 100_000;

const FORMATS = '{"type": "text"} or {"type": "grammar", "syntax": "lark" | "regex", "definition"}';

function grammarRx(syntax: string, definition: string): Rx {
  if (syntax === "lark") return larkToRx(definition);
  const alts = parsePattern(definition, "");
  return alts.length === 1 ? alts[0]!.rx : { k: "alt", items: alts.map((a) => a.rx) };
}

/** The schema of a custom tool's `input` argument, by its `format` (at `w`.format, the tool named `name`). */
export function customInputSchema(format: unknown, w: string, name: string): Obj {
  const input: Obj = { type: "string" };
  const schema = { type: "object", properties: { input }, required: ["input"], additionalProperties: false };
  if (!given(format)) return schema;
  const at = `${w}.format`;
  if (!isObj(format)) throw invalidParam(at, `${at} must be ${FORMATS}, got ${kind(format)}`, "invalid_type");
  if (format.type === "text") return schema;
  if (format.type !== "grammar")
    throw invalidParam(
      `${at}.type`,
      `${at}.type must be "text" or "grammar", got ${shown(format.type)}`,
      "unsupported_value",
    );
  const { syntax, definition } = format;
  if (syntax !== "lark" && syntax !== "regex")
    throw invalidParam(
      `${at}.syntax`,
      `${at}.syntax must be "lark" or "regex", got ${shown(syntax)}`,
      "unsupported_value",
    );
  if (typeof definition !== "string" || definition === "" || definition.length > DEFINITION_LIMIT)
    throw invalidParam(
      `${at}.definition`,
      `${at}.definition must be a ${syntax} grammar of 1 to ${DEFINITION_LIMIT} characters, got ${typeof definition === "string" ? `${definition.length} characters` : kind(definition)}`,
      typeof definition === "string" ? "invalid_value" : "invalid_type",
    );
  try {
    const source = rxSource(grammarRx(syntax, definition));
    // The lowering's own reading and repetition limits, checked here to name the tool.
    patternRepetition(parsePattern(source, ""), "");
    input.pattern = source;
  } catch (e) {
    if (e instanceof GrammarLimitError)
      throw invalidParam(
        `${at}.definition`,
        `${at}.definition (custom tool ${shown(name)}): ${e.message.replace(/^: "pattern": /, "")}`,
        "unsupported_value",
      );
    if (e instanceof LarkGrammarError)
      throw invalidParam(
        `${at}.definition`,
        `${at}.definition (custom tool ${shown(name)}): ${e.construct}: ${e.message}`,
        "unsupported_value",
      );
    if (e instanceof UnsupportedSchemaError)
      throw invalidParam(
        `${at}.definition`,
        `${at}.definition (custom tool ${shown(name)}): ${e.message.replace(/^: "pattern": /, "the regex: ")}`,
        "unsupported_value",
      );
    throw e;
  }
  return schema;
}
