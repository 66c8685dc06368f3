// Types of parser-runs.mjs (for the TypeScript tests that import it).
import type { ParseResult, ParserInput, StreamEvent, ToolCallStreamParser } from "../../src/index.js";
import type { StreamDeltas } from "../../src/engine/stream.js";

export function mergedEvents(events: StreamEvent[]): Array<Record<string, unknown>>;
export function runChunks(Parser: typeof ToolCallStreamParser, text: string, options: ParserInput, cuts: number[]): { result: ParseResult; events: Array<Record<string, unknown>> };
export function eventsDisagree(result: ParseResult, events: Array<Record<string, unknown>>): string | undefined;
export function deltasDisagree(
  result: ParseResult,
  events: Array<Record<string, unknown>>,
  Deltas: typeof StreamDeltas,
): string | undefined;
