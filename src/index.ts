// toolmask: reliable tool calls from local models.
export { Vocabulary } from "./vocab/vocabulary.js";
export { TokenKind, type VocabularyData } from "./vocab/types.js";
export { compileGrammar, CompiledGrammar, GrammarMatcher, type GrammarInput, type CompileOptions } from "./grammar/compile.js";
export * from "./grammar/builders.js";
export type * from "./grammar/ir.js";
export { jsonSchemaToIR, lowerJsonSchemas, UnsupportedSchemaError, InvalidSchemaError } from "./grammar/json-schema.js";
export { toEbnf, EbnfExportError, type ToEbnfOptions } from "./grammar/export-ebnf.js";
export { readGgufMetadata } from "./vocab/gguf.js";
