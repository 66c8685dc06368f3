// The native test programs (native/tests), built with CMake beside the addon and run: the core's
// grammar/mask checks and the decode-thread → JS-thread handoff of a generation.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { timeoutForMeasured } from "../support/timeouts.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const dir = path.join(root, "build-tests");

function run(cmd: string, args: string[]) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: "utf8" });
  return { status: r.status, out: `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? String(r.error) : ""}` };
}

beforeAll(() => {
  const conf = run("cmake", ["-S", root, "-B", dir, "-DTOOLMASK_NATIVE_TESTS=ON", "-DCMAKE_BUILD_TYPE=Release"]);
  expect(conf.status, conf.out).toBe(0);
  const build = run("cmake", ["--build", dir, "--target", "core_tests", "job_mailbox_tests", "-j", "2"]);
  expect(build.status, build.out).toBe(0);
}, 600_000);

describe("native test programs", () => {
  // core_tests used about 3.2 s of CPU here, and took 103 s of wall time at a load average of
  // 14–18 on 2 cores (run with nice beside four heavy jobs).
  it("core_tests: masks, walks and bad input of the grammar core", { timeout: timeoutForMeasured(103_000) }, () => {
    const r = run(path.join(dir, "core_tests"), []);
    expect(r.status, r.out).toBe(0);
  });

  it("job_mailbox_tests: every interleaving settles a generation exactly once, after all its tokens", () => {
    const r = run(path.join(dir, "job_mailbox_tests"), []);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toMatch(/interleavings of a 3-token job: \d+ explored/);
  });
});
