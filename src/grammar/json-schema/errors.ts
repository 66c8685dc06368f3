// The JSON-schema lowering's errors and the JSON paths they name.

/** A schema keyword (or keyword value) that this lowering does not implement. */
export class UnsupportedSchemaError extends Error {
  /** JSON path of the offending keyword, e.g. `$.properties.path.format`. */
  readonly path: string;
  readonly keyword: string;
  constructor(path: string, keyword: string, detail: string) {
    super(`${path}: ${detail}`);
    this.name = "UnsupportedSchemaError";
    this.path = path;
    this.keyword = keyword;
  }
}

/** A schema that is malformed, or that no value can match. */
export class InvalidSchemaError extends Error {
  /** JSON path of the offending schema or keyword. */
  readonly path: string;
  /** The keyword at fault, when there is one. */
  readonly keyword: string | undefined;
  constructor(path: string, keyword: string | undefined, detail: string) {
    super(`${path}: ${detail}`);
    this.name = "InvalidSchemaError";
    this.path = path;
    this.keyword = keyword;
  }
}

export const unsupported = (path: string, kw: string, hint: string) =>
  new UnsupportedSchemaError(childPath(path, kw), kw, `"${kw}" is not supported; ${hint}`);
export const invalid = (path: string, kw: string | undefined, detail: string) =>
  new InvalidSchemaError(kw === undefined ? path : childPath(path, kw), kw, detail);

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** `path.key`, `path["odd key"]` or `path[3]`. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return IDENT.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** A short description of a value for an error message. */
export function describe(x: unknown): string {
  if (x === undefined) return "undefined";
  if (Array.isArray(x)) return "an array";
  if (x === null) return "null";
  if (typeof x === "object") return "an object";
  try {
    return JSON.stringify(x) ?? String(x);
  } catch {
    return String(x);
  }
}
