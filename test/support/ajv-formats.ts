// ajv 8 with ajv-formats (mode "full", its default): the format oracle of the tests (scripts/lib/ajv-formats.mjs).
export { ajvWithFormats, type Validator } from "../../scripts/lib/ajv-formats.mjs";
