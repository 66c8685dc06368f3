// toolmask: reliable tool calls from local models.
export { Vocabulary } from "./vocab/vocabulary.js";
export { TokenKind, type VocabularyData } from "./vocab/types.js";
export { compileGrammar, CompiledGrammar, GrammarMatcher, type GrammarInput, type CompileOptions, type RandomWalkOptions, type RandomWalk } from "./grammar/compile.js";
export * from "./grammar/builders.js";
export type * from "./grammar/ir.js";
export { jsonSchemaToIR, lowerJsonSchemas, UnsupportedSchemaError, InvalidSchemaError } from "./grammar/json-schema.js";
export { toEbnf, EbnfExportError, type ToEbnfOptions } from "./grammar/export-ebnf.js";
export { toGbnf, type ToGbnfOptions } from "./grammar/export-gbnf.js";
export { toLark, gbnfToLark, type ToLarkOptions } from "./grammar/export-lark.js";
export { readGgufMetadata } from "./vocab/gguf.js";
export { dialects, getDialect } from "./dialects/index.js";
export type { DialectSpec, Glue, XmlCallFormat, JsonCallFormat, HarmonyCallFormat } from "./dialects/spec.js";
export { buildToolGrammar } from "./dialects/grammar.js";
export type { DialectOptions } from "./dialects/options.js";
export { ToolDefinitionError, type ToolChoice } from "./dialects/tools.js";
export { ToolCallStreamParser, parseToolCalls, type ParserOptions } from "./parser/stream.js";
export type { ParseResult, StreamEvent, ToolCall, IncompleteCall, DroppedConstruct, FinishReason } from "./parser/types.js";
