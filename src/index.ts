// toolmask: reliable tool calls from local models.
export { Vocabulary } from "./vocab/vocabulary.js";
export type { RuleLibraryStats, ShapeCacheStats } from "./native.js";
export { TokenKind, type VocabularyData } from "./vocab/types.js";
export {
  compileGrammar,
  compileGrammarAsync,
  CompiledGrammar,
  GrammarMatcher,
  FINISH_HORIZON,
  type GrammarInput,
  type CompileOptions,
  type RandomWalkOptions,
  type RandomWalk,
} from "./grammar/compile.js";
export * from "./grammar/builders.js";
export type * from "./grammar/ir.js";
export {
  jsonSchemaToIR,
  lowerJsonSchemas,
  UnsupportedSchemaError,
  InvalidSchemaError,
} from "./grammar/json-schema/index.js";
export { EmptyGrammarError, GrammarLimitError, type GrammarLimit } from "./grammar/errors.js";
export {
  grammarCache,
  grammarCacheBudget,
  setGrammarCacheBytes,
  DEFAULT_GRAMMAR_CACHE_BYTES,
  type GrammarCache,
} from "./grammar/cache.js";
export { toEbnf, EbnfExportError, type ToEbnfOptions } from "./grammar/export/ebnf.js";
export { toGbnf, type ToGbnfOptions } from "./grammar/export/gbnf.js";
export { toLark, type ToLarkOptions } from "./grammar/export/lark.js";
export { readGgufMetadata } from "./vocab/gguf.js";
export { writeTestModel, type TestModelOptions, type TestModelInfo } from "./model/test-model.js";
export { dialects, getDialect } from "./dialects/index.js";
export type {
  DialectSpec,
  Glue,
  XmlCallFormat,
  JsonCallFormat,
  HarmonyCallFormat,
  PythonCallFormat,
  EnvelopeCallFormat,
} from "./dialects/spec.js";
export { promptParts, callsText, type PromptParts } from "./dialects/prompt.js";
export { buildToolGrammar } from "./dialects/grammar.js";
export { resolveRequest, type DialectOptions, type ResolvedRequest } from "./dialects/options.js";
export type { ChoiceMode } from "./dialects/tool-choice.js";
export { ToolDefinitionError, type ToolChoice } from "./dialects/tools.js";
export {
  ResponseFormatError,
  resolveResponseFormat,
  type ResponseFormat,
  type ResolvedResponseFormat,
} from "./dialects/response-format.js";
export {
  ToolCallStreamParser,
  parseToolCalls,
  type ParserOptions,
  type ParserInput,
  type ParserLimits,
} from "./parser/stream.js";
export type {
  ParseResult,
  StreamEvent,
  ToolCall,
  IncompleteCall,
  DroppedConstruct,
  FinishReason,
  ToolCallArgument,
  StructuredVerdict,
} from "./parser/types.js";
export { MAX_VALUE_DEPTH } from "./parser/argument-event.js";
export { loadModel, LlamaModel, defaultThreads, type LoadModelOptions } from "./engine/model.js";
export type { GpuOption } from "./engine/llama-library.js";
export { generate, type GenerateOptions, type GenerateResult, type AssistantMessage } from "./engine/generate.js";
export { generateStream, type StreamChunk, type StreamDelta, type StreamToolCallDelta } from "./engine/stream.js";
export { detectDialect, detectModelDialect, UnknownDialectError, type DetectOptions } from "./engine/detect-dialect.js";
export { ContextLengthError, MaxTokensTooSmallError } from "./engine/errors.js";
export { ChatTemplateError } from "./templates/render.js";
export { runAgent, serializeHistory, parseHistory, isTruncatedFinish } from "./agent/index.js";
export type {
  RunAgentOptions,
  AgentResult,
  AgentStatus,
  AgentMessage,
  AgentTool,
  AgentToolCall,
  ToolContext,
  AgentClient,
  HttpAgentClient,
  LocalAgentClient,
  AgentGenerateOptions,
  AgentUsage,
  AgentTurn,
  AgentError,
  ReasoningEffort,
} from "./agent/index.js";
export { startServer } from "./server/start-lazy.js";
export type { ServerOptions, ToolmaskServer } from "./server/index.js";
