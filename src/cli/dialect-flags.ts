// The flags parse and grammar share: a dialect, its tools and the options every dialect honours.
import { getDialect, dialects } from "../dialects/index.js";
import type { DialectOptions } from "../dialects/options.js";
import { intFlag, readTools, requireFlag, toolChoiceFlag, type Values } from "./args.js";
import { CliError } from "./errors.js";

export const DIALECT_FLAGS = {
  dialect: { type: "string" },
  tools: { type: "string" },
  "tool-choice": { type: "string" },
  "no-parallel": { type: "boolean" },
  reasoning: { type: "boolean" },
  "max-value-length": { type: "string" },
} as const;

export const DIALECT_HELP =
  `  --dialect D           one of: ${dialects.join(", ")}\n` +
  '  --tools FILE          OpenAI tools: a JSON array, or { "tools": [...] }\n' +
  "  --tool-choice C       auto (default), required, none, or a tool's name\n" +
  "  --no-parallel         at most one call\n" +
  "  --reasoning           a thought block may open the answer\n" +
  "  --max-value-length N  characters per raw text value at most";

export function dialectOptions(args: Values): DialectOptions {
  const name = requireFlag(args.dialect, "--dialect");
  if (!dialects.includes(name))
    throw new CliError(`unknown dialect ${JSON.stringify(name)}; known dialects: ${dialects.join(", ")}`);
  const o: DialectOptions = { dialect: getDialect(name) };
  if (args.tools !== undefined) o.tools = readTools(requireFlag(args.tools, "--tools"));
  const choice = toolChoiceFlag(args["tool-choice"]);
  if (choice !== undefined) o.toolChoice = choice;
  if (args["no-parallel"]) o.parallelToolCalls = false;
  if (args.reasoning) o.reasoning = true;
  if (args["max-value-length"] !== undefined)
    o.maxValueLength = intFlag(args["max-value-length"], "--max-value-length", 0, 1e9);
  return o;
}
