// BFCL function docs → OpenAI tools. BFCL writes parameter types in its own terms; each is mapped
// to the JSON Schema type bfcl-eval's own GORILLA_TO_OPENAPI mapping gives, and its AST checker
// then expects of the value (ast_checker.py PYTHON_TYPE_MAPPING):
//   dict → object, float → number (an integer is accepted: the checker turns int into float),
//   tuple → array (the checker compares tuples as lists), any → string (the checker wants a str),
//   a type it does not know, or none → string.
// Other quirks, as bfcl-eval's convert_to_tool handles them or as JSON Schema requires:
//   - names: "." is not allowed in an OpenAI function name (^[a-zA-Z0-9_-]{1,64}$), so it becomes
//     "_" as in convert_to_tool for OpenAI-style clients; the checker is told to map back
//     (underscore_to_dot). Two names of one item that would collide are an error.
//   - descriptions get the hint BFCL adds for Python categories (" Note that the provided function
//     is in Python 3 syntax.") and, for float parameters, " This is a float type value.".
//   - "optional" (a BFCL keyword, true on some properties, a list on a few parameter objects) is
//     dropped: what is optional is what "required" leaves out, and the checker reads "required".
//   - "default" is kept only where it is a value of the property's type (40 properties carry the
//     string "false" for a boolean, or a string for an array); it is an annotation either way,
//     and a wrong-typed one would only mislead the model. Parameter objects' defaults are dropped.
//   - "format": toolmask's grammar does not enforce formats and refuses the keyword, so a format
//     BFCL writes ("date", on 4 properties) moves into the description (" Format: date."), as
//     convert_to_tool does for Gemini; the "format": "float" convert_to_tool adds for OpenAI
//     clients is not added ("float" is no JSON Schema format; the description says it).
import type { BfclFunction, BfclSchema } from "./types.js";

export const PYTHON_HINT = " Note that the provided function is in Python 3 syntax.";
export const FLOAT_HINT = " This is a float type value.";

const TYPE_MAP: Record<string, string> = {
  integer: "integer",
  number: "number",
  float: "number",
  string: "string",
  boolean: "boolean",
  bool: "boolean",
  array: "array",
  list: "array",
  dict: "object",
  object: "object",
  tuple: "array",
  any: "string",
};

export interface OpenAiTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ConvertedTools {
  tools: OpenAiTool[];
  /** OpenAI name → BFCL name. */
  bfclName: Map<string, string>;
}

export class BfclConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BfclConversionError";
  }
}

/** The OpenAI function name for a BFCL name. */
export const openAiName = (bfclName: string): string => bfclName.replace(/\./g, "_");

function fitsType(value: unknown, type: string): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "number":
      return typeof value === "number";
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    default:
      return false;
  }
}

/** One property's (or item's) schema. */
export function convertSchema(s: BfclSchema, where: string): Record<string, unknown> {
  if (s === null || typeof s !== "object" || Array.isArray(s))
    throw new BfclConversionError(`${where}: a schema must be an object`);
  const bfclType = typeof s.type === "string" ? s.type : undefined;
  const type = (bfclType !== undefined ? TYPE_MAP[bfclType] : undefined) ?? "string";
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === "optional") continue;
    if (k === "type") out.type = type;
    else if (k === "description") out.description = String(v) + (bfclType === "float" ? FLOAT_HINT : "");
    else if (k === "format") continue;
    else if (k === "default") {
      if (fitsType(v, type)) out.default = v;
    } else if (k === "properties") {
      const props: Record<string, unknown> = {};
      for (const [name, p] of Object.entries(v as Record<string, BfclSchema>))
        props[name] = convertSchema(p, `${where}.properties.${name}`);
      out.properties = props;
    } else if (k === "items") out.items = convertSchema(v as BfclSchema, `${where}.items`);
    else out[k] = v;
  }
  if (!("type" in out)) out.type = type;
  if (s.format !== undefined)
    out.description = `${typeof out.description === "string" ? out.description : ""} Format: ${String(s.format)}.`;
  return out;
}

/** The parameters object of one function (BFCL writes its type as "dict"). */
function convertParameters(p: BfclSchema, where: string): Record<string, unknown> {
  if (p === null || typeof p !== "object" || Array.isArray(p))
    throw new BfclConversionError(`${where}: parameters must be an object`);
  const properties: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(p.properties ?? {}))
    properties[name] = convertSchema(s, `${where}.properties.${name}`);
  const out: Record<string, unknown> = { type: "object", properties };
  if (p.required !== undefined) {
    if (!Array.isArray(p.required) || p.required.some((r) => typeof r !== "string"))
      throw new BfclConversionError(`${where}.required must be a list of names`);
    out.required = p.required;
  }
  return out;
}

/** An item's functions as OpenAI tools, with the names mapped back. */
export function toOpenAiTools(functions: readonly BfclFunction[]): ConvertedTools {
  const bfclName = new Map<string, string>();
  const tools = functions.map((f, i): OpenAiTool => {
    const where = `function[${i}] ${JSON.stringify(f?.name)}`;
    if (typeof f?.name !== "string" || f.name === "")
      throw new BfclConversionError(`function[${i}]: a function needs a name`);
    const name = openAiName(f.name);
    const before = bfclName.get(name);
    if (before !== undefined)
      throw new BfclConversionError(`${where}: "${f.name}" and "${before}" both become "${name}"`);
    bfclName.set(name, f.name);
    return {
      type: "function",
      function: {
        name,
        description: String(f.description ?? "") + PYTHON_HINT,
        parameters: convertParameters(f.parameters ?? {}, `${where}.parameters`),
      },
    };
  });
  return { tools, bfclName };
}
