// npm run bench:formats at its smallest size (scripts/bench/bench-formats.mjs --smallest): the tool
// grammar of one string parameter in hermes, plain and with format "uri", each compiled on Qwen3's
// vocabulary in a child process: the table has both rows, each a CPU time, a native compile time
// and the grammar's tables in MB. Times are printed, not judged.
import { expect, it } from "vitest";
import { distBuilt, runBench } from "../support/bench-run.js";
import { timeoutForMeasured } from "../support/timeouts.js";

// 2.7 s wall on 2 cores at load average 6.
const TIMEOUT = timeoutForMeasured(2_700);

it.skipIf(!distBuilt)("bench:formats --smallest: hermes, the plain string and uri, each a measured row", () => {
  const r = runBench("bench-formats.mjs", ["--smallest"], TIMEOUT);
  expect(r.status, r.all).toBe(0);
  const rows = r.stdout
    .split("\n")
    .filter((l) => /^\| [^-|]/.test(l) && !l.startsWith("| format"))
    .map((l) => l.split(" | ").map((x) => x.replace(/^\| | \|$/g, "")));
  expect(
    rows.map((c) => c[0]),
    r.all,
  ).toEqual(["(none)", "uri"]);
  for (const c of rows) expect(c[1], r.all).toMatch(/^\d+ · \d+ · \d+(\.\d+)?$/);
});
