// Tools for the agent suites that record what happened to them: when each call started and
// ended (in event order, not time), how many ran at once, and what they were given.
import type { AgentTool } from "../../src/agent/types.js";

export interface ToolLog {
  events: string[];
  /** Calls running right now, over every tool sharing this log. */
  inFlight: number;
  maxInFlight: number;
  args: Array<Record<string, unknown>>;
}

export const newLog = (): ToolLog => ({ events: [], inFlight: 0, maxInFlight: 0, args: [] });

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A tool that logs `start:<id>`, waits `delayMs` (or its `delay` argument) and logs `end:<id>`,
 * returning its `mark` argument or "done <id>".
 */
export function loggingTool(
  log: ToolLog,
  o: { name?: string; parallelSafe?: boolean; delayMs?: number; parameters?: Record<string, unknown> } = {},
): AgentTool {
  return {
    name: o.name ?? "probe",
    description: "records its calls",
    parameters: o.parameters ?? {
      type: "object",
      properties: { delay: { type: "integer" }, mark: { type: "string" } },
    },
    parallelSafe: o.parallelSafe ?? false,
    async execute(args, ctx) {
      log.args.push(args);
      log.events.push(`start:${ctx.toolCallId}`);
      log.maxInFlight = Math.max(log.maxInFlight, ++log.inFlight);
      await tick(typeof args.delay === "number" ? args.delay : (o.delayMs ?? 5));
      log.inFlight--;
      log.events.push(`end:${ctx.toolCallId}`);
      return typeof args.mark === "string" ? args.mark : `done ${ctx.toolCallId}`;
    },
  };
}
