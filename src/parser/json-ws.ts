// JSON's whitespace (space, tab, line feed, carriage return): the only whitespace the grammars let
// a model write where they allow whitespace (jsonWs in src/dialects/grammar-forms.ts), so the only
// whitespace the parser takes for glue around calls.

/** Whether the UTF-16 code unit `c` is JSON whitespace. */
export const isJsonWs = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d;
