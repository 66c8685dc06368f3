// A valid instance of a JSON schema and its text as Python's json.dumps writes it: the walks of
// bench:structured and bench:mask's tool cases (every engine's default whitespace takes that text).
import { generateSync } from "json-schema-faker";
import { ajvWithFormats } from "../../lib/ajv-formats.mjs";

const ajv = ajvWithFormats("2020");
const noSchemaKey = ({ $schema: _, ...rest }) => rest;

/** json.dumps's text of a JSON value (", " and ": "), non-ASCII as it is. */
export const dumps = (v) =>
  Array.isArray(v)
    ? `[${v.map(dumps).join(", ")}]`
    : v !== null && typeof v === "object"
      ? `{${Object.entries(v)
          .map(([k, x]) => `${JSON.stringify(k)}: ${dumps(x)}`)
          .join(", ")}}`
      : JSON.stringify(v);

/** A valid instance of `schema` from json-schema-faker (short arrays and strings), or undefined. */
export function fakeInstance(schema) {
  const valid = ajv.compile(noSchemaKey(schema));
  for (let seed = 31; seed < 39; seed++) {
    const v = generateSync(noSchemaKey(schema), {
      seed,
      alwaysFakeOptionals: true,
      optionalsProbability: 1,
      maxItems: 3,
      maxLength: 40,
    });
    if (valid(v)) return v;
  }
  return undefined;
}
