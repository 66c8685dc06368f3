// Types of json-schema-suite-expected.mjs.
export type Reason =
  | "impliedType" | "closedObjects" | "oneOfAsAnyOf" | "unsupportedKeyword"
  | "draft04Exclusive" | "remoteRef" | "allOfMerge" | "unknownKeyword" | "uriScheme";
export const REASONS: Record<Reason, string>;
export const DEVIATIONS: Record<string, { verdict: "over" | "under"; reason: Reason }>;
export const REFUSED: Record<string, { error: "UnsupportedSchemaError" | "InvalidSchemaError"; keyword: string; path: string; reason: Reason }>;
