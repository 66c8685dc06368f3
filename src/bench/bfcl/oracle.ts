// bfcl-eval's checker and conversion in a Python subprocess (scripts/bench/bfcl/oracle.py), one JSON
// line per request. The caller names the interpreter (the venv's, from npm run pyenv -- bfcl) and
// the script, since neither ships with the npm package.
import { spawn } from "node:child_process";
import type { BfclCategory, BfclFunction, BfclGroundTruthCall } from "./types.js";

export interface OracleProgram {
  python: string;
  script: string;
}

export interface CheckRequest {
  op: "check";
  category: BfclCategory;
  functions: BfclFunction[];
  /** The answer's calls: OpenAI names, arguments as the JSON text the model wrote (Python reads it: 1.0 stays a float). */
  calls: Array<{ name: string; arguments: string }>;
  groundTruth: BfclGroundTruthCall[];
}
export interface CheckAnswer {
  valid: boolean;
  errorType: string | null;
  error: string[];
}

export type OracleRequest =
  | CheckRequest
  | { op: "convert"; functions: BfclFunction[] }
  | { op: "truth"; groundTruth: BfclGroundTruthCall[]; pick: Array<Record<string, number>> }
  | { op: "contentCalls"; text: string }
  | { op: "datadir" };

/** Sends every request, returns the answers in order; a request the script could not answer is an error naming it. */
export async function askOracle(program: OracleProgram, requests: readonly OracleRequest[]): Promise<unknown[]> {
  const child = spawn(program.python, [program.script], { stdio: ["pipe", "pipe", "pipe"] });
  const out: Buffer[] = [],
    err: Buffer[] = [];
  child.stdout.on("data", (b: Buffer) => out.push(b));
  child.stderr.on("data", (b: Buffer) => err.push(b));
  const done = new Promise<number | null>((resolve, reject) => {
    child.on("error", (e) =>
      reject(new Error(`bfcl oracle: cannot run ${program.python} (${e.message}); run \`npm run pyenv -- bfcl\``)),
    );
    child.on("close", (code) => resolve(code));
  });
  child.stdin.on("error", () => {
    /* the exit status below reports it */
  });
  child.stdin.end(requests.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const code = await done;
  const lines = Buffer.concat(out)
    .toString("utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
  if (code !== 0 || lines.length !== requests.length)
    throw new Error(
      `bfcl oracle: ${program.script} exited ${code} with ${lines.length} answers for ${requests.length} requests: ${Buffer.concat(err).toString("utf8").slice(-2000)}`,
    );
  return lines.map((l, i) => {
    const a = JSON.parse(l) as { failed?: string };
    if (a.failed) throw new Error(`bfcl oracle: request ${i} (${requests[i]!.op}) failed: ${a.failed}`);
    return a;
  });
}

export async function checkWithOracle(
  program: OracleProgram,
  requests: readonly CheckRequest[],
): Promise<CheckAnswer[]> {
  return (await askOracle(program, requests)) as CheckAnswer[];
}

export type OracleCall = { name: string; arguments: string };

/** The JSON calls ({"name", "arguments"} objects) written as plain text in each of `texts`. */
export async function contentCalls(program: OracleProgram, texts: readonly string[]): Promise<OracleCall[][]> {
  const out = (await askOracle(
    program,
    texts.map((text) => ({ op: "contentCalls" as const, text })),
  )) as Array<{ calls: OracleCall[] }>;
  return out.map((o) => o.calls);
}

/** Where the installed bfcl-eval keeps its data, and its version. */
export async function bfclInstall(program: OracleProgram): Promise<{ dataDir: string; version: string }> {
  const [a] = (await askOracle(program, [{ op: "datadir" }])) as Array<{ dataDir: string; version: string }>;
  return a!;
}
