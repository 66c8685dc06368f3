// Runs the parity corpus through both parsers, with the same options on both sides.
import { getDialect, ToolCallStreamParser, type ParseResult, type StreamEvent } from "../../src/index.js";
import {
  templatePath,
  type LlamaOracle,
  type OracleRequest,
  type OracleResult,
  type OracleTool,
} from "./llama-oracle.js";
import type { ParityCase } from "./parity-corpus.js";

export type ReasoningMode = boolean | "forced-open";

export interface ParityRow {
  case: ParityCase;
  /** Our `reasoning` option, as llama.cpp reads thoughts with this template and switch. */
  reasoning: ReasoningMode;
  ours: ParseResult;
  /** Our stream events for the whole output fed at once. */
  events: StreamEvent[];
  theirs: OracleResult;
}

function request(c: ParityCase, text: string, tools: unknown[]): OracleRequest {
  return {
    template: templatePath(c.template),
    tools: tools as OracleTool[],
    text,
    // Our options: toolChoice auto, parallelToolCalls as the case says; llama-server's reasoning format.
    parallel_tool_calls: c.parallel ?? true,
    tool_choice: "auto",
    reasoning_format: c.reasoningFormat ?? "deepseek",
    enable_thinking: c.thinking,
    ...(c.bosToken !== undefined ? { bos_token: c.bosToken } : {}),
    ...(c.eosToken !== undefined ? { eos_token: c.eosToken } : {}),
  };
}

/**
 * How llama.cpp reads a thought with this template and switch, found by asking it: a thought
 * that opens the answer (ours: true), one the prompt already opened ("forced-open"), or none (false).
 */
async function reasoningMode(oracle: LlamaOracle, c: ParityCase): Promise<ReasoningMode> {
  const r = getDialect(c.dialect).reasoning;
  if (!r || c.reasoningFormat === "none") return false;
  const ask = async (text: string) => {
    const res = await oracle.parse(request(c, text, c.tools));
    if (!res.ok)
      throw new Error(`llama-oracle: probing thoughts with ${c.template} failed at ${res.stage}: ${res.error}`);
    return res;
  };
  const [opened, forced] = await Promise.all([ask(`${r.open}r${r.close}c`), ask(`r${r.close}c`)]);
  if (forced.reasoning_content === "r") return "forced-open";
  if (opened.reasoning_content === "r" && opened.content === "c") return true;
  return false;
}

export async function runParity(oracle: LlamaOracle, cases: ParityCase[]): Promise<ParityRow[]> {
  const modes = new Map<string, Promise<ReasoningMode>>();
  const modeOf = (c: ParityCase) => {
    const key = JSON.stringify([
      c.template,
      c.thinking,
      c.bosToken,
      c.eosToken,
      c.tools,
      c.parallel,
      c.reasoningFormat,
    ]);
    let m = modes.get(key);
    if (!m) modes.set(key, (m = reasoningMode(oracle, c)));
    return m;
  };
  // Requests are pipelined: the oracle answers in order while we parse.
  return Promise.all(
    cases.map(async (c) => {
      const [reasoning, theirs] = await Promise.all([modeOf(c), oracle.parse(request(c, c.text, c.tools))]);
      const parser = new ToolCallStreamParser({
        dialect: c.dialect,
        tools: c.tools,
        reasoning,
        parallelToolCalls: c.parallel ?? true,
      });
      const events = parser.feed(c.text);
      const { events: last, ...ours } = parser.end("stop");
      return { case: c, reasoning, ours, events: [...events, ...last], theirs };
    }),
  );
}
