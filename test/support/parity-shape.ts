// Our parse result and llama.cpp's, in one comparable shape.
import type { ParseResult } from "../../src/index.js";
import type { OracleResult } from "./llama-oracle.js";

export interface ShapeCall {
  name: string;
  /** The parsed arguments; absent when they are not valid JSON (`unfinished` holds the text). */
  arguments?: unknown;
  unfinished?: string;
}

export interface Shape {
  content: string;
  reasoning: string;
  calls: ShapeCall[];
}

/**
 * Ours: complete calls only. A call we report incomplete has no counterpart in llama.cpp's
 * result shape; it is kept aside (`cut`: the output ended inside it, with its name when known;
 * `invalid`: it ended but does not fit its tool) for the classes to explain.
 */
export interface OurShape extends Shape {
  cut: Array<{ name: string | null }>;
  invalid: Array<{ name: string | null; reason: string }>;
}

/** llama.cpp's: its result, or the error its final parse threw. */
export type TheirShape = ({ ok: true } & Shape) | { ok: false; error: string };

export function ourShape(r: ParseResult): OurShape {
  return {
    content: r.content ?? "",
    reasoning: r.reasoning ?? "",
    calls: r.toolCalls.map((c) => ({ name: c.function.name, arguments: JSON.parse(c.function.arguments) as unknown })),
    cut: r.incomplete.filter((i) => i.kind === "cut").map((i) => ({ name: i.name })),
    invalid: r.incomplete.filter((i) => i.kind === "invalid").map((i) => ({ name: i.name, reason: i.reason })),
  };
}

export function theirShape(r: OracleResult): TheirShape {
  if (!r.ok) return { ok: false, error: `${r.stage}: ${r.error}` };
  return {
    ok: true,
    content: r.content,
    reasoning: r.reasoning_content,
    calls: r.tool_calls.map((c) => {
      try {
        return { name: c.name, arguments: JSON.parse(c.arguments) as unknown };
      } catch {
        return { name: c.name, unfinished: c.arguments };
      }
    }),
  };
}
