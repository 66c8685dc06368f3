// What toolmask does with each case of the JSON Schema Test Suite (draft4) where it does not
// simply pass: the schemas it refuses (with the error, keyword and path) and the tests where its
// documented semantics differ from JSON Schema's (docs/json-schema.md explains each reason).
// test/no-model/json-schema-suite.test.ts holds the engine to exactly these lists: a new difference fails,
// and so does a listed one that no longer happens.

/** Why a case differs; the docs' table of deviations is keyed by these. */
export const REASONS = {
  impliedType:
    'a type-specific keyword implies its type: {"minLength": 2} is a string schema, so 1 is refused (JSON Schema lets values of other types pass)',
  closedObjects:
    '"properties" without "additionalProperties" means "additionalProperties": false (a tool call should not invent arguments)',
  oneOfAsAnyOf:
    '"oneOf" is lowered like "anyOf": a value matching two alternatives is accepted (a grammar cannot count matches)',
  unsupportedKeyword: "the keyword is not supported; the error names it and says what to write instead",
  draft04Exclusive:
    "the draft-04 boolean exclusiveMinimum / exclusiveMaximum is refused: give the bound itself (draft-06+)",
  remoteRef: 'only local "$ref" pointers ("#/…") are supported; nothing is fetched',
  allOfMerge:
    '"allOf" is merged only where its parts (and the keywords beside it) constrain a string (pattern, minLength, maxLength, format); parts that constrain objects or numbers are refused',
  unknownKeyword:
    "a keyword the lowering does not know is refused, not ignored (a typo would otherwise loosen the grammar)",
  uriScheme:
    '"format": "uri" is an RFC 3986 URI, which starts with a scheme (as ajv-formats has it); draft 4\'s suite also takes a protocol-relative reference',
};

/** Tests whose verdict differs from the suite's, by test name (file / group / test). */
export const DEVIATIONS = {
  "additionalItems / additionalItems as false without items / ignores non-arrays": {
    verdict: "over",
    reason: "impliedType",
  },
  "additionalProperties / additionalProperties are allowed by default / additional properties are allowed": {
    verdict: "over",
    reason: "closedObjects",
  },
  "items / a schema given for items / ignores non-arrays": { verdict: "over", reason: "impliedType" },
  "maxItems / maxItems validation / ignores non-arrays": { verdict: "over", reason: "impliedType" },
  "maxLength / maxLength validation / ignores non-strings": { verdict: "over", reason: "impliedType" },
  "maximum / maximum validation / ignores non-numbers": { verdict: "over", reason: "impliedType" },
  "minItems / minItems validation / ignores non-arrays": { verdict: "over", reason: "impliedType" },
  "minLength / minLength validation / ignores non-strings": { verdict: "over", reason: "impliedType" },
  "minimum / minimum validation / ignores non-numbers": { verdict: "over", reason: "impliedType" },
  "optional/format / validation of URIs / a valid protocol-relative URI": { verdict: "over", reason: "uriScheme" },
  "oneOf / oneOf / both oneOf valid": { verdict: "under", reason: "oneOfAsAnyOf" },
  "oneOf / oneOf with base schema / both oneOf valid": { verdict: "under", reason: "oneOfAsAnyOf" },
  "pattern / pattern validation / ignores non-strings": { verdict: "over", reason: "impliedType" },
  "properties / object properties validation / doesn't invalidate other properties": {
    verdict: "over",
    reason: "closedObjects",
  },
  "properties / object properties validation / ignores non-objects": { verdict: "over", reason: "impliedType" },
  "ref / root pointer ref / match": { verdict: "over", reason: "impliedType" },
  "ref / root pointer ref / recursive match": { verdict: "over", reason: "impliedType" },
};

/** Groups whose schema toolmask refuses, by group name (file / group): the error it throws. */
export const REFUSED = {
  "additionalProperties / additionalProperties being false does not allow other properties": {
    error: "UnsupportedSchemaError",
    keyword: "patternProperties",
    path: "$.patternProperties",
    reason: "unsupportedKeyword",
  },
  "allOf / allOf": { error: "UnsupportedSchemaError", keyword: "allOf", path: "$.allOf", reason: "allOfMerge" },
  "allOf / allOf with base schema": {
    error: "UnsupportedSchemaError",
    keyword: "allOf",
    path: "$.allOf",
    reason: "allOfMerge",
  },
  "allOf / allOf simple types": {
    error: "UnsupportedSchemaError",
    keyword: "allOf",
    path: "$.allOf",
    reason: "allOfMerge",
  },
  "definitions / valid definition": {
    error: "UnsupportedSchemaError",
    keyword: "$ref",
    path: "$.$ref",
    reason: "remoteRef",
  },
  "definitions / invalid definition": {
    error: "UnsupportedSchemaError",
    keyword: "$ref",
    path: "$.$ref",
    reason: "remoteRef",
  },
  "dependencies / dependencies": {
    error: "UnsupportedSchemaError",
    keyword: "dependencies",
    path: "$.dependencies",
    reason: "unsupportedKeyword",
  },
  "dependencies / multiple dependencies": {
    error: "UnsupportedSchemaError",
    keyword: "dependencies",
    path: "$.dependencies",
    reason: "unsupportedKeyword",
  },
  "dependencies / multiple dependencies subschema": {
    error: "UnsupportedSchemaError",
    keyword: "dependencies",
    path: "$.dependencies",
    reason: "unsupportedKeyword",
  },
  "maxProperties / maxProperties validation": {
    error: "UnsupportedSchemaError",
    keyword: "maxProperties",
    path: "$.maxProperties",
    reason: "unsupportedKeyword",
  },
  "maximum / exclusiveMaximum validation": {
    error: "InvalidSchemaError",
    keyword: "exclusiveMaximum",
    path: "$.exclusiveMaximum",
    reason: "draft04Exclusive",
  },
  "minProperties / minProperties validation": {
    error: "UnsupportedSchemaError",
    keyword: "minProperties",
    path: "$.minProperties",
    reason: "unsupportedKeyword",
  },
  "minimum / exclusiveMinimum validation": {
    error: "InvalidSchemaError",
    keyword: "exclusiveMinimum",
    path: "$.exclusiveMinimum",
    reason: "draft04Exclusive",
  },
  "multipleOf / by int": {
    error: "UnsupportedSchemaError",
    keyword: "multipleOf",
    path: "$.multipleOf",
    reason: "unsupportedKeyword",
  },
  "multipleOf / by number": {
    error: "UnsupportedSchemaError",
    keyword: "multipleOf",
    path: "$.multipleOf",
    reason: "unsupportedKeyword",
  },
  "multipleOf / by small number": {
    error: "UnsupportedSchemaError",
    keyword: "multipleOf",
    path: "$.multipleOf",
    reason: "unsupportedKeyword",
  },
  "not / not": { error: "UnsupportedSchemaError", keyword: "not", path: "$.not", reason: "unsupportedKeyword" },
  "not / not multiple types": {
    error: "UnsupportedSchemaError",
    keyword: "not",
    path: "$.not",
    reason: "unsupportedKeyword",
  },
  "not / not more complex schema": {
    error: "UnsupportedSchemaError",
    keyword: "not",
    path: "$.not",
    reason: "unsupportedKeyword",
  },
  "not / forbidden property": {
    error: "UnsupportedSchemaError",
    keyword: "not",
    path: "$.properties.foo.not",
    reason: "unsupportedKeyword",
  },
  "patternProperties / patternProperties validates properties matching a regex": {
    error: "UnsupportedSchemaError",
    keyword: "patternProperties",
    path: "$.patternProperties",
    reason: "unsupportedKeyword",
  },
  "patternProperties / multiple simultaneous patternProperties are validated": {
    error: "UnsupportedSchemaError",
    keyword: "patternProperties",
    path: "$.patternProperties",
    reason: "unsupportedKeyword",
  },
  "patternProperties / regexes are not anchored by default and are case sensitive": {
    error: "UnsupportedSchemaError",
    keyword: "patternProperties",
    path: "$.patternProperties",
    reason: "unsupportedKeyword",
  },
  "properties / properties, patternProperties, additionalProperties interaction": {
    error: "UnsupportedSchemaError",
    keyword: "patternProperties",
    path: "$.patternProperties",
    reason: "unsupportedKeyword",
  },
  "ref / escaped pointer ref": {
    error: "UnsupportedSchemaError",
    keyword: "tilda~field",
    path: '$["tilda~field"]',
    reason: "unknownKeyword",
  },
  "ref / remote ref, containing refs itself": {
    error: "UnsupportedSchemaError",
    keyword: "$ref",
    path: "$.$ref",
    reason: "remoteRef",
  },
  "refRemote / remote ref": { error: "UnsupportedSchemaError", keyword: "$ref", path: "$.$ref", reason: "remoteRef" },
  "refRemote / fragment within remote ref": {
    error: "UnsupportedSchemaError",
    keyword: "$ref",
    path: "$.$ref",
    reason: "remoteRef",
  },
  "refRemote / ref within remote ref": {
    error: "UnsupportedSchemaError",
    keyword: "$ref",
    path: "$.$ref",
    reason: "remoteRef",
  },
  "refRemote / change resolution scope": {
    error: "UnsupportedSchemaError",
    keyword: "id",
    path: "$.id",
    reason: "unknownKeyword",
  },
  "uniqueItems / uniqueItems validation": {
    error: "UnsupportedSchemaError",
    keyword: "uniqueItems",
    path: "$.uniqueItems",
    reason: "unsupportedKeyword",
  },
  "optional/bignum / float comparison with high precision": {
    error: "InvalidSchemaError",
    keyword: "exclusiveMaximum",
    path: "$.exclusiveMaximum",
    reason: "draft04Exclusive",
  },
  "optional/bignum / float comparison with high precision on negative numbers": {
    error: "InvalidSchemaError",
    keyword: "exclusiveMinimum",
    path: "$.exclusiveMinimum",
    reason: "draft04Exclusive",
  },
};
