// npm run bench:json-schema-suite at its smallest size (scripts/bench/bench-json-schema-suite.mjs
// --smallest): the first group of each keyword's draft4 file judged on toolmask and on each peer
// that is installed (llguidance: `npm run pyenv -- peers`; XGrammar 0.2.8: a pyenv group
// "xgrammar" or --xgrammar-python); a peer that is not is named "not measured" with what installs
// it (llguidance missing under CI=true: a failure; .ci/run installs it). The full suite's table
// is bench/results/json-schema-suite.json and docs/json-schema.md.
import { expect, it } from "vitest";
import { loadSuite } from "../../scripts/lib/json-schema-suite.mjs";
import { distBuilt, resultsSnapshot, runBench } from "../support/bench-run.js";
import { timeoutForMeasured } from "../support/timeouts.js";

// 5.3 s on 2 cores at load average 4 with llguidance installed.
const TIMEOUT = timeoutForMeasured(5_300);
const cell = String.raw`\d+/\d+( · \d+ refused)?( · \d+ over)?( · \d+ under)?`;

it.skipIf(!distBuilt)(
  "bench:json-schema-suite --smallest: a row per keyword with toolmask's and each installed peer's counts",
  () => {
    const before = resultsSnapshot();
    const r = runBench("bench-json-schema-suite.mjs", ["--smallest"], TIMEOUT);
    expect(r.status, r.all).toBe(0);
    const header = r.stdout.split("\n").find((l) => l.startsWith("| keyword (draft4 file) | tests | "));
    expect(header, r.all).toBeDefined();
    const columns = header!.split(" | ").slice(2);
    expect(columns[0]).toMatch(/^toolmask /);
    for (const peer of ["llguidance", "xgrammar"]) {
      const missing = r.stdout.match(new RegExp(`^${peer}: not measured: (.*)$`, "m"));
      if (missing && process.env.CI === "true" && peer === "llguidance")
        throw new Error(`CI=true and llguidance not measured: ${missing[1]}`);
      if (missing) console.warn(`bench:json-schema-suite --smallest: ${peer} not measured: ${missing[1]}`);
      else
        expect(
          columns.some((c) => c.startsWith(`${peer} `)),
          r.all,
        ).toBe(true);
    }
    const keywords = [...new Set(loadSuite().map((g) => g.file.replace(/\.json$/, "")))];
    const rows = r.stdout.split("\n").filter((l) => l.startsWith("| ") && !/^\| (keyword|\*\*all)/.test(l));
    expect(rows.map((l) => (l.split(" | ")[0] ?? "").slice(2))).toEqual(keywords);
    for (const l of rows) {
      const cells = l.replace(/ \|$/, "").split(" | ").slice(2);
      expect(cells.length, l).toBe(columns.length);
      for (const c of cells) expect(c, l).toMatch(new RegExp(`^${cell}$`));
    }
    expect(resultsSnapshot()).toEqual(before);
    console.log(r.stdout);
  },
  TIMEOUT,
);
