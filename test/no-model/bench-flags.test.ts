// Every bench entry (each scripts/bench/*.mjs that no other script imports, and the GPU check that
// reads the benches' flags) checks its command line before any work (scripts/bench/lib/bench-flags.mjs):
// --help prints the usage and exits 0; a flag it does not know exits 2 naming the flag, with the
// usage. Neither writes bench/results. A script that starts its benchmark instead runs past the
// child's timeout and fails here.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { distBuilt, resultsSnapshot } from "../support/bench-run.js";
import { ROOT } from "../support/vocabs.js";
import { spawnSync } from "node:child_process";

// `--help` took 0.9 s at load average 23 (node startup and the script's static imports of dist/);
// a minute is far past it and far short of any bench's work.
const CHILD_TIMEOUT = 60_000;

const benchDir = join(ROOT, "scripts", "bench");
const benchFiles = readdirSync(benchDir).filter((f) => f.endsWith(".mjs"));
const texts = benchFiles.map((f) => readFileSync(join(benchDir, f), "utf8"));
/** The scripts run from a command line: the bench files no other bench imports, and the GPU path check. */
const entries = [
  ...benchFiles
    .filter((f) => !texts.some((t) => t.includes(`import("./${f}")`) || t.includes(`"${f}")`)))
    .map((f) => join("scripts", "bench", f)),
  join("scripts", "gpu", "check-paths.mjs"),
];

const run = (script: string, args: string[]) => {
  const r = spawnSync(process.execPath, [join(ROOT, script), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: CHILD_TIMEOUT,
    killSignal: "SIGKILL",
    env: { ...process.env, TOOLMASK_QUIET: "1" },
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, all: `${r.stderr}\n${r.stdout}` };
};

describe.skipIf(!distBuilt)("bench command lines", () => {
  it("lists the bench entries", () => {
    expect(entries.length).toBeGreaterThan(15);
    expect(entries).toContain(join("scripts", "bench", "bench-structured.mjs"));
    expect(entries).toContain(join("scripts", "bench", "fuzz.mjs"));
    expect(entries).not.toContain(join("scripts", "bench", "bench-decode-peer.mjs"));
  });

  it.each(entries)(
    "%s: --help prints the usage and exits 0; --no-such-flag exits 2 naming it; bench/results untouched",
    (script) => {
      const before = resultsSnapshot();
      const help = run(script, ["--help"]);
      expect(help.status, help.all).toBe(0);
      expect(help.stdout, help.all).toMatch(/^usage: /);
      const bad = run(script, ["--no-such-flag"]);
      expect(bad.status, bad.all).toBe(2);
      expect(bad.stderr, bad.all).toContain('unknown flag "--no-such-flag"');
      expect(bad.stderr, bad.all).toMatch(/^usage: /m);
      expect(resultsSnapshot()).toEqual(before);
    },
    2 * CHILD_TIMEOUT + 10_000,
  );

  it(
    "a flag without its value, or a word that follows no flag, exits 2 with the usage; nothing written",
    () => {
      const before = resultsSnapshot();
      const script = join("scripts", "bench", "bench-upstream-json.mjs");
      const noValue = run(script, ["--reps"]);
      expect(noValue.status, noValue.all).toBe(2);
      expect(noValue.stderr, noValue.all).toContain("--reps needs a value");
      expect(noValue.stderr, noValue.all).toMatch(/^usage: .*\[--reps N/m);
      const flagAsValue = run(script, ["--reps", "--smallest"]);
      expect(flagAsValue.status, flagAsValue.all).toBe(2);
      expect(flagAsValue.stderr, flagAsValue.all).toContain("--reps needs a value");
      const stray = run(script, ["--smallest", "3"]);
      expect(stray.status, stray.all).toBe(2);
      expect(stray.stderr, stray.all).toContain('unexpected argument "3"');
      expect(resultsSnapshot()).toEqual(before);
    },
    3 * CHILD_TIMEOUT + 10_000,
  );
});
