// ajv 8 with every ajv-formats format (mode "full", its default): the format oracle of the tests
// and scripts. Plain ESM so scripts/ can import it; test/support/ajv-formats.ts re-exports it.
import AjvModule from "ajv";
import Ajv2020Module from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

const classOf = (m) => m.default ?? m;
const DRAFTS = { "07": classOf(AjvModule), 2020: classOf(Ajv2020Module) };
const addFormats = classOf(addFormatsModule);

/** A new ajv (strict off, no logger) for `draft` ("07": ajv's default class; "2020": ajv/dist/2020) with every ajv-formats format. */
export function ajvWithFormats(draft = "07") {
  const Ajv = DRAFTS[draft];
  if (!Ajv) throw new RangeError(`ajvWithFormats: draft must be "07" or "2020", got ${JSON.stringify(draft)}`);
  const ajv = new Ajv({ strict: false, logger: false });
  addFormats(ajv);
  return ajv;
}
