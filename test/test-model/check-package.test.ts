// `npm run check:package` as CI runs it: the packed tarball installs without a compiler, without
// install scripts and (from the npm cache) without the network, then loads its prebuild, makes a
// tool call and runs the demo. The script checks each step; this asserts what a user would see.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

describe("check:package", () => {
  it("installs the tarball with no compiler on the PATH and generates a tool call from it", () => {
    const t = performance.now();
    const r = spawnSync(process.execPath, [path.join(root, "scripts", "build", "check-package.mjs"), "--no-tsc"], {
      cwd: root,
      encoding: "utf8",
      maxBuffer: 64 << 20,
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout.trim().split("\n").pop()!);
    const { pack, path: bin, install, generate, demo } = summary.steps;
    console.log(
      `check:package took ${((performance.now() - t) / 1000).toFixed(0)} s; fetched from the network: ${JSON.stringify(install.fromNetwork)}`,
    );
    expect(pack.prebuildBytes).toBeGreaterThan(100_000);
    expect(bin.notFound).toEqual(expect.arrayContaining(["cc", "g++", "cmake"]));
    expect(install.notInstalled).toEqual(["@resvg/resvg-js", "dejavu-fonts-ttf"]);
    expect(generate.finishReason).toBe("tool_calls");
    expect(generate.calls[0].function.name).toBe("get_weather");
    if (!generate.gpu)
      expect(generate.stderr.split("\n")).toEqual([
        expect.stringMatching(/^toolmask: no GPU in use, decoding on the CPU \(/),
      ]);
    expect(demo.lastLine).toMatch(/^valid calls: masked (\d+)\/\1,/);
  }, 300_000);
});
