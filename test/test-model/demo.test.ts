// `npm run demo` as a user runs it: a child process on the built package (npm test builds dist/
// first), the test model decoding one prompt unmasked and masked side by side.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "..", "..");

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function demo(args: string[], env: Record<string, string> = {}): Promise<Run> {
  if (!existsSync(join(ROOT, "dist", "index.js")))
    throw new Error("dist/ is missing: run `npx tsc -p tsconfig.build.json` (npm test does) first");
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(ROOT, "scripts", "demo.mjs"), ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 110_000 },
      (error, stdout, stderr) =>
        done({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** The demo's per-answer rows: side, verdict, finish reason. */
function rows(stdout: string): Array<{ side: string; verdict: string; finish: string }> {
  return [
    ...stdout.matchAll(/^\s+(?:seed \d+\s+)?(unmasked|masked)\s+(complete call|no call|cut|invalid)\s+finish (\w+)/gm),
  ].map((m) => ({ side: m[1]!, verdict: m[2]!, finish: m[3]! }));
}

describe("npm run demo", () => {
  it("shows every masked answer as a complete call and no unmasked one, and exits 0", async () => {
    const r = await demo([]);
    expect(r.code, r.stderr).toBe(0);
    const all = rows(r.stdout);
    const masked = all.filter((x) => x.side === "masked");
    const unmasked = all.filter((x) => x.side === "unmasked");
    expect(masked).toHaveLength(6); // 2 scenarios × 3 seeds
    expect(unmasked).toHaveLength(6);
    expect(masked.every((x) => x.verdict === "complete call")).toBe(true);
    expect(unmasked.some((x) => x.verdict === "complete call")).toBe(false);
    // Both ways a call-hungry model breaks one unmasked: stopping before it, and being cut inside it.
    expect(unmasked.map((x) => `${x.verdict}/${x.finish}`)).toEqual(
      expect.arrayContaining(["no call/stop", "cut/length"]),
    );
    expect(masked.some((x) => x.finish === "tool_calls")).toBe(true);
    expect(r.stdout).toMatch(/get_weather \{"(days": \d, ")?city": "Paris"\}/);
    expect(r.stdout).toMatch(
      /valid calls: masked 6\/6, unmasked 0\/6; decoding \d+\.\d+ ms\/token masked, \d+\.\d+ ms\/token unmasked/,
    );
  });

  it("writes the test model when it is missing (no download)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolmask-demo-"));
    try {
      const path = join(dir, "sub", "model.gguf");
      const r = await demo(["--model", path, "--seeds", "1", "--max-tokens", "64"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`wrote the test model to ${path}`);
      expect(existsSync(path)).toBe(true);
      expect(r.stdout).toMatch(/valid calls: masked 2\/2, unmasked 0\/2/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says what to do, and exits non-zero, when the llama.cpp library cannot load", async () => {
    const r = await demo(["--seeds", "1"], { TOOLMASK_LLAMA_LIB_DIR: "/nonexistent/llama-libs" });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      /^toolmask demo: cannot load llama\.cpp or the model: .*\/nonexistent\/llama-libs does not exist/,
    );
    expect(r.stderr).toContain("TOOLMASK_LLAMA_LIB_DIR");
    expect(r.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
  });

  it("refuses bad options with usage and exit code 2", async () => {
    const r = await demo(["--seeds", "0"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--seeds must be an integer in 1\.\.50, got "0"\nusage:/);
  });
});
