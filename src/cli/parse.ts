// `toolmask parse`: a model's raw output on stdin, read by a dialect's parser; the result as JSON
// (content, reasoning, tool_calls, finishReason, incomplete and dropped calls).
import { parseToolCalls } from "../parser/stream.js";
import { choiceFlag, parseFlags, readStdin } from "./args.js";
import type { Command } from "./command.js";
import { DIALECT_FLAGS, DIALECT_HELP, dialectOptions } from "./dialect-flags.js";
import { CliError } from "./errors.js";

const usage =
  "usage: toolmask parse --dialect D [--tools FILE] [options] < output.txt\n" +
  "Reads the model's output text on stdin and prints the parse result as JSON.\n" +
  DIALECT_HELP +
  "\n" +
  "  --finish stop|length  how the output ended (length: the model was cut off; open calls are reported cut)\n" +
  "  --compact             one line of JSON instead of indented";

async function run(argv: string[]): Promise<number> {
  const args = parseFlags(argv, { ...DIALECT_FLAGS, finish: { type: "string" }, compact: { type: "boolean" } });
  const options = dialectOptions(args);
  const finishReason = choiceFlag(args.finish, "--finish", ["stop", "length"] as const, "stop");
  if (process.stdin.isTTY)
    throw new CliError(
      "nothing on stdin: pipe the model's output in (toolmask parse --dialect D --tools FILE < output.txt)",
    );
  const text = await readStdin();
  const result = parseToolCalls(text, { ...options, finishReason });
  process.stdout.write(JSON.stringify(result, null, args.compact ? undefined : 2) + "\n");
  return 0;
}

export const parseCommand: Command = { name: "parse", usage, run };
