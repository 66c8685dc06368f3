// The toolmask command line: finds the command, shows help, turns errors into one line and an
// exit code. Commands load lazily so `toolmask parse` never loads llama.cpp.
import type { Command } from "./command.js";
import { CliError, UsageError } from "./errors.js";

type Loader = () => Promise<Command>;

/** Written by another module on its own branch: loaded by name so this file builds without it. */
const SERVER_MODULE = "../server/cli.js";

async function serveCommand(): Promise<Command> {
  let mod: { serveCommand?: (argv: string[]) => Promise<number>; serveUsage?: string; SERVE_HELP?: string };
  try {
    mod = (await import(SERVER_MODULE)) as typeof mod;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" && String((e as Error).message).includes("server"))
      throw new CliError("this build of toolmask has no server (dist/server/cli.js is missing); rebuild with `npm run build:ts` from a checkout that has src/server/");
    throw e;
  }
  if (typeof mod.serveCommand !== "function") throw new CliError("dist/server/cli.js does not export serveCommand(argv); rebuild toolmask");
  const run = mod.serveCommand;
  return {
    name: "serve", summary: SUMMARIES.serve!,
    usage: mod.serveUsage ?? mod.SERVE_HELP ?? "usage: toolmask serve --model PATH [--host 127.0.0.1] [--port 8080] [--parallel N] [--api-key KEY]",
    // The server parses its own flags (and prints its own help for --help).
    run: (argv) => run(argv),
  };
}

const LOADERS: Record<string, Loader> = {
  demo: async () => (await import("./demo.js")).demoCommand,
  generate: async () => (await import("./generate.js")).generateCommand,
  parse: async () => (await import("./parse.js")).parseCommand,
  grammar: async () => (await import("./grammar.js")).grammarCommand,
  "make-test-model": async () => (await import("./make-test-model.js")).makeTestModelCommand,
  bench: async () => (await import("./bench.js")).benchCommand,
  serve: serveCommand,
};

const SUMMARIES: Record<string, string> = {
  demo: "the test model answers one prompt unmasked and masked, side by side (no download)",
  generate: "one answer from a GGUF model with tools, masked; the result as JSON",
  parse: "read a model's output on stdin; tool calls and verdict as JSON",
  grammar: "the grammar a dialect and tools define, as GBNF, Lark or IR JSON",
  "make-test-model": "write the random-weight Qwen3 test model (~45 MB, seconds)",
  bench: "unmasked vs masked vs node-llama-cpp + GBNF: validity, speed, mask time; JSON, HTML, PNG",
  serve: "an OpenAI-compatible HTTP server (chat completions with tools)",
};

export const COMMANDS: readonly string[] = Object.keys(LOADERS);

function overview(): string {
  const w = Math.max(...COMMANDS.map((c) => c.length));
  return "usage: toolmask <command> [options]\n\ncommands:\n" +
    COMMANDS.map((c) => `  ${c.padEnd(w)}  ${SUMMARIES[c]}`).join("\n") +
    "\n\n`toolmask help <command>` or `toolmask <command> --help` shows a command's options.";
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
    if (topic === undefined) { process.stdout.write(overview() + "\n"); return 0; }
    if (!(topic in LOADERS)) return unknown(topic);
    if (topic === "serve") return runCommand("serve", ["--help"]);
    process.stdout.write((await LOADERS[topic]!()).usage + "\n");
    return 0;
  }
  if (name === "--version" || name === "version") {
    process.stdout.write(`${await version()}\n`);
    return 0;
  }
  if (!(name in LOADERS)) return unknown(name);
  return runCommand(name, rest);
}

function unknown(name: string): number {
  process.stderr.write(`toolmask: unknown command ${JSON.stringify(name)}; commands: ${COMMANDS.join(", ")} (see \`toolmask help\`)\n`);
  return 2;
}

async function runCommand(name: string, argv: string[]): Promise<number> {
  let usage = "";
  try {
    const cmd = await LOADERS[name]!();
    usage = cmd.usage;
    if (name !== "serve" && (argv.includes("--help") || argv.includes("-h"))) {
      process.stdout.write(cmd.usage + "\n");
      return 0;
    }
    return await cmd.run(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      // One line for what is wrong, then the synopsis; the full help is a command away.
      process.stderr.write(`toolmask ${name}: ${e.message}\n${usage.split("\n")[0]}\n(\`toolmask help ${name}\` lists every option)\n`);
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
