// A local "$ref" (a JSON pointer into the document the schema sits in): the schema it names and
// that schema's path, or an error naming where the "$ref" stands.
import { childPath, describe, invalid, UnsupportedSchemaError } from "./errors.js";
import { hasOwn, isObj } from "./keywords.js";

/** The schema `pointer` (met at `path`) names in `root`, whose own path is `rootPath`. */
export function resolvePointer(
  root: unknown,
  rootPath: string,
  pointer: string,
  path: string,
): { schema: unknown; path: string } {
  const refPath = childPath(path, "$ref");
  if (!pointer.startsWith("#")) {
    throw new UnsupportedSchemaError(
      refPath,
      "$ref",
      `"$ref": ${JSON.stringify(pointer)} is not supported (only local references like "#/$defs/Name" are); inline the referenced schema under "$defs"`,
    );
  }
  let frag: string;
  try {
    frag = decodeURIComponent(pointer.slice(1));
  } catch {
    throw invalid(path, "$ref", `"$ref": ${JSON.stringify(pointer)} is not a valid URI fragment`);
  }
  if (frag !== "" && !frag.startsWith("/")) {
    throw new UnsupportedSchemaError(
      refPath,
      "$ref",
      `"$ref": ${JSON.stringify(pointer)} is not supported (anchors are not; only JSON pointers like "#/$defs/Name" are); refer to the schema by its pointer`,
    );
  }
  let cur: unknown = root;
  let p = rootPath;
  if (frag !== "") {
    for (const raw of frag.slice(1).split("/")) {
      const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      if (Array.isArray(cur) && /^(0|[1-9][0-9]*)$/.test(seg) && Number(seg) < cur.length) {
        cur = cur[Number(seg)];
        p = childPath(p, Number(seg));
      } else if (isObj(cur) && hasOwn(cur, seg)) {
        cur = cur[seg];
        p = childPath(p, seg);
      } else
        throw invalid(
          path,
          "$ref",
          `"$ref": ${JSON.stringify(pointer)} points to nothing in this schema; add the target (e.g. under "$defs") or fix the pointer`,
        );
    }
  }
  if (typeof cur !== "boolean" && !isObj(cur))
    throw invalid(
      path,
      "$ref",
      `"$ref": ${JSON.stringify(pointer)} points to ${describe(cur)}, not a schema; fix the pointer`,
    );
  return { schema: cur, path: p };
}
