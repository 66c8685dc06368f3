// The top level of a tool's parameters, checked the same in every dialect. A call's arguments are
// named parameters: XML and Python calls write each on its own, so only what constrains them one
// by one (`properties`, `required`, `additionalProperties`, `propertyNames`) can be held there.
// What would constrain the object as a whole is refused in every dialect rather than dropped in
// some (a silently looser grammar), and so is a required name no call could write.
import { childPath, invalid, UnsupportedSchemaError } from "../grammar/json-schema/errors.js";

/** Keywords of a whole arguments object, each with what to write instead. */
export const TOP_LEVEL_HINTS: Readonly<Record<string, string>> = {
  anyOf:
    'declare every parameter in "properties" and in "required" only those all alternatives need (the tool checks the rest), or make one tool per alternative',
  oneOf:
    'declare every parameter in "properties" and in "required" only those all alternatives need (the tool checks the rest), or make one tool per alternative',
  allOf: "merge its schemas into the parameters themselves",
  $ref: 'put the referenced schema\'s "properties" and "required" in the parameters themselves',
  enum: 'give each parameter its own "enum" or "const" in "properties"',
  const: 'give each parameter its own "const" in "properties"',
  nullable: "remove it; a call's arguments are an object, never null",
};

const WHY = "(a call's arguments are named parameters, which XML and Python calls write one by one)";

/** Throws for a top-level keyword of TOP_LEVEL_HINTS (`nullable` when true) or a required name not in `properties`. */
export function checkTopLevel(
  p: Record<string, unknown>,
  properties: Record<string, unknown>,
  required: string[],
  path: string,
): void {
  for (const [kw, hint] of Object.entries(TOP_LEVEL_HINTS)) {
    if (!Object.hasOwn(p, kw) || (kw === "nullable" && p[kw] !== true)) continue;
    throw new UnsupportedSchemaError(
      childPath(path, kw),
      kw,
      `"${kw}" at the top of a tool's parameters is not supported ${WHY}; ${hint}`,
    );
  }
  const undeclared = required.find((k) => !Object.hasOwn(properties, k));
  if (undeclared !== undefined)
    throw invalid(
      path,
      "required",
      `"${undeclared}" is required but is not declared in "properties", so no call can write it ${WHY}; declare "${undeclared}" in "properties"`,
    );
}
