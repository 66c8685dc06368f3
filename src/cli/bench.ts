import type { Command } from "./command.js";
import { CliError } from "./errors.js";
export const benchCommand: Command = { name: "bench", summary: "", usage: "usage: toolmask bench", run: async () => { throw new CliError("not yet"); } };
