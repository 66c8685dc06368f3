// Types of ajv-formats.mjs.
export interface Validator {
  compile(schema: unknown): (data: unknown) => boolean;
}
export function ajvWithFormats(draft?: "07" | "2020"): Validator;
