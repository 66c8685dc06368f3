// The built CLI as a user runs it: `node dist/cli/main.js ...` in a child process.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./vocabs.js";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export const CLI = join(ROOT, "dist", "cli", "main.js");

export function cli(
  args: string[],
  o: { input?: string; timeout?: number; env?: Record<string, string> } = {},
): Promise<CliRun> {
  if (!existsSync(CLI))
    throw new Error("dist/cli/main.js is missing: run `npx tsc -p tsconfig.build.json` (npm test does) first");
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: ROOT, env: { ...process.env, ...o.env }, timeout: o.timeout ?? 60_000, maxBuffer: 64 << 20 },
      (error, stdout, stderr) =>
        done({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr }),
    );
    child.stdin!.end(o.input ?? "");
  });
}
