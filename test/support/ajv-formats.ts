// ajv 8 with ajv-formats (mode "full", its default): the format oracle of the tests.
import AjvModule from "ajv";
import addFormatsModule from "ajv-formats";

export interface Validator {
  compile(schema: unknown): (data: unknown) => boolean;
}
const Ajv = ((AjvModule as unknown as { default?: unknown }).default ?? AjvModule) as new (o: object) => Validator;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Validator,
) => void;

/** A new ajv (strict off) with every ajv-formats format. */
export function ajvWithFormats(): Validator {
  const ajv = new Ajv({ strict: false });
  addFormats(ajv);
  return ajv;
}
