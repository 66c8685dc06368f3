// Flag parsing on node:util parseArgs, with errors that say which flag and what it wants.
import { readFileSync, statSync } from "node:fs";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { CliError, UsageError } from "./errors.js";

type Options = NonNullable<ParseArgsConfig["options"]>;
export type Values = Record<string, string | boolean | undefined>;

/** Strict parse: unknown flags, missing values and stray positionals are usage errors. */
export function parseFlags(argv: string[], options: Options): Values {
  try {
    const { values } = parseArgs({
      args: argv,
      options: { ...options, help: { type: "boolean", short: "h" }, progress: { type: "boolean" } },
      strict: true,
      allowPositionals: false,
    });
    return values as Values;
  } catch (e) {
    // parseArgs' messages span lines; one line here.
    throw new UsageError(
      String((e as Error).message)
        .trim()
        .replace(/\.?\n+/g, "; ")
        .replace(/\.$/, ""),
    );
  }
}

/** An integer flag in [min, max]. */
export function intFlag(v: unknown, flag: string, min: number, max: number, dflt?: number): number {
  if (v === undefined && dflt !== undefined) return dflt;
  if (typeof v !== "string" || !/^-?\d+$/.test(v) || +v < min || +v > max)
    throw new UsageError(`${flag} must be an integer in ${min}..${max}, got ${JSON.stringify(v ?? "")}`);
  return +v;
}

/** A number flag in [min, max]. */
export function numberFlag(v: unknown, flag: string, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
  if (!Number.isFinite(n) || n < min || n > max)
    throw new UsageError(`${flag} must be a number in ${min}..${max}, got ${JSON.stringify(v)}`);
  return n;
}

/** One of a fixed set of words. */
export function choiceFlag<T extends string>(v: unknown, flag: string, choices: readonly T[], dflt?: T): T {
  if (v === undefined && dflt !== undefined) return dflt;
  if (typeof v !== "string" || !choices.includes(v as T))
    throw new UsageError(`${flag} must be one of ${choices.join(", ")}, got ${JSON.stringify(v ?? "")}`);
  return v as T;
}

export function requireFlag(v: unknown, flag: string): string {
  if (typeof v !== "string" || v === "") throw new UsageError(`${flag} is required`);
  return v;
}

/** A file's text, or an error naming the file and what it was for. */
export function readText(path: string, what: string): string {
  let kind: "missing" | "dir" | "ok" = "missing";
  try {
    kind = statSync(path).isDirectory() ? "dir" : "ok";
  } catch {
    /* reported below */
  }
  // Pipes and /dev/stdin are files here too.
  if (kind !== "ok") throw new CliError(`${what} ${path}: ${kind === "dir" ? "is a directory" : "no such file"}`);
  return readFileSync(path, "utf8");
}

/** A JSON file, parsed; bad JSON is reported with the file's name and the parser's reason. */
export function readJson(path: string, what: string): unknown {
  const text = readText(path, what);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new CliError(`${what} ${path} is not valid JSON: ${(e as Error).message}`);
  }
}

/** OpenAI tools from a file holding either the array or { "tools": [...] }. */
export function readTools(path: string): unknown[] {
  const j = readJson(path, "tools file");
  const tools = Array.isArray(j)
    ? j
    : j !== null && typeof j === "object" && Array.isArray((j as { tools?: unknown }).tools)
      ? (j as { tools: unknown[] }).tools
      : undefined;
  if (!tools) throw new CliError(`tools file ${path} must hold a JSON array of OpenAI tools, or { "tools": [...] }`);
  return tools;
}

/** --tool-choice: auto, required, none, or a tool's name. */
export function toolChoiceFlag(
  v: unknown,
): "auto" | "required" | "none" | { type: "function"; function: { name: string } } | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "string" || v === "")
    throw new UsageError("--tool-choice must be auto, required, none or a tool's name");
  return v === "auto" || v === "required" || v === "none" ? v : { type: "function", function: { name: v } };
}

/** All of stdin as text. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
