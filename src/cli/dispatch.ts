// The toolmask command line: finds the command, shows help, turns errors into one line and an
// exit code. Commands load lazily so `toolmask parse` never loads llama.cpp.
import type { Command } from "./command.js";
import { CliError, UsageError } from "./errors.js";

/** Every command: its one line for `toolmask help` and how to load it. */
const TABLE: Record<string, { summary: string; load: () => Promise<Command> }> = {
  demo: {
    summary: "the test model answers one prompt unmasked and masked, side by side (no download)",
    load: async () => (await import("./demo.js")).demoCommand,
  },
  generate: {
    summary: "one answer from a GGUF model with tools, masked; the result as JSON",
    load: async () => (await import("./generate.js")).generateCommand,
  },
  parse: {
    summary: "read a model's output on stdin; tool calls and verdict as JSON",
    load: async () => (await import("./parse.js")).parseCommand,
  },
  grammar: {
    summary: "the grammar a dialect and tools define, as GBNF, Lark or IR JSON",
    load: async () => (await import("./grammar.js")).grammarCommand,
  },
  "make-test-model": {
    summary: "write the random-weight Qwen3 test model (~45 MB, seconds)",
    load: async () => (await import("./make-test-model.js")).makeTestModelCommand,
  },
  bench: {
    summary: "unmasked vs masked vs node-llama-cpp + GBNF: validity, speed, mask time; JSON, HTML, PNG",
    load: async () => (await import("./bench.js")).benchCommand,
  },
  serve: {
    summary: "an OpenAI-compatible HTTP server (chat completions with tools)",
    load: async () => {
      const { serveCommand, SERVE_HELP } = await import("../server/cli.js");
      return { name: "serve", usage: SERVE_HELP, ownHelp: true, run: (argv) => serveCommand(argv) };
    },
  },
};

export const COMMANDS: readonly string[] = Object.keys(TABLE);

function overview(): string {
  const w = Math.max(...COMMANDS.map((c) => c.length));
  return (
    "usage: toolmask <command> [options]\n\ncommands:\n" +
    COMMANDS.map((c) => `  ${c.padEnd(w)}  ${TABLE[c]!.summary}`).join("\n") +
    "\n\n`toolmask help <command>` or `toolmask <command> --help` shows a command's options."
  );
}

/** Runs the command line `argv` (without node and the script); resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h") {
    (name === undefined ? process.stderr : process.stdout).write(overview() + "\n");
    return name === undefined ? 2 : 0;
  }
  if (name === "help") {
    const topic = rest[0];
    if (topic === undefined) {
      process.stdout.write(overview() + "\n");
      return 0;
    }
    if (!(topic in TABLE)) return unknown(topic);
    const cmd = await TABLE[topic]!.load();
    if (cmd.ownHelp) return runCommand(topic, ["--help"]);
    process.stdout.write(cmd.usage + "\n");
    return 0;
  }
  if (name === "--version" || name === "version") {
    process.stdout.write(`${await version()}\n`);
    return 0;
  }
  if (!(name in TABLE)) return unknown(name);
  return runCommand(name, rest);
}

function unknown(name: string): number {
  process.stderr.write(
    `toolmask: unknown command ${JSON.stringify(name)}; commands: ${COMMANDS.join(", ")} (see \`toolmask help\`)\n`,
  );
  return 2;
}

async function runCommand(name: string, argv: string[]): Promise<number> {
  let usage = "";
  try {
    const cmd = await TABLE[name]!.load();
    usage = cmd.usage;
    if (!cmd.ownHelp && (argv.includes("--help") || argv.includes("-h"))) {
      process.stdout.write(cmd.usage + "\n");
      return 0;
    }
    return await cmd.run(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      // One line for what is wrong, then the synopsis; the full help is a command away.
      process.stderr.write(
        `toolmask ${name}: ${e.message}\n${usage.split("\n")[0]}\n(\`toolmask help ${name}\` lists every option)\n`,
      );
      return e.exitCode;
    }
    if (e instanceof CliError) {
      process.stderr.write(`toolmask ${name}: ${e.message}\n`);
      return e.exitCode;
    }
    // Errors from the library say what to do already; no stack trace for the user.
    const message = e instanceof Error ? e.message : String(e);
    process.stderr.write(`toolmask ${name}: ${message}\n`);
    if (process.env.TOOLMASK_DEBUG) process.stderr.write(`${(e as Error).stack ?? ""}\n`);
    return 1;
  }
}

async function version(): Promise<string> {
  const { readFileSync } = await import("node:fs");
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}
