// gpu: "auto" on a machine without a usable GPU (this one: node-llama-cpp's CUDA package is
// installed, no NVIDIA driver is loaded): the CPU build, and ONE line on stderr per process saying
// why; TOOLMASK_QUIET=1 or gpu: false keeps it quiet. Each case is its own process (the notice is
// once per process). Also the per-platform names of node-llama-cpp's packages and libraries.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { libraryFileRe, packageBinsDir, packageName } from "../../src/engine/llama-packages.js";
import { testModelPath } from "../support/test-model.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

function loadTwice(gpu: string, env: NodeJS.ProcessEnv = {}): { gpus: unknown[]; stderr: string } {
  const script = `
    const { loadModel } = await import(${JSON.stringify(path.join(root, "dist", "index.js"))});
    const gpus = [];
    for (let i = 0; i < 2; i++) {
      const m = await loadModel({ path: ${JSON.stringify(testModelPath())}, gpu: ${gpu}, parallel: 1 });
      gpus.push(m.gpu);
      m.dispose();
    }
    console.log(JSON.stringify(gpus));`;
  const childEnv = { ...process.env, ...env };
  if (!("TOOLMASK_QUIET" in env)) delete childEnv.TOOLMASK_QUIET;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { env: childEnv, encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return { gpus: JSON.parse(r.stdout.trim().split("\n").pop()!), stderr: r.stderr };
}
const noticeLines = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("toolmask:"));

describe.skipIf(process.platform !== "linux")('gpu: "auto" without a GPU', () => {
  it("falls back to the CPU with one line on stderr that says why, once per process", () => {
    const { gpus, stderr } = loadTwice('"auto"');
    expect(gpus).toEqual([false, false]);
    const lines = noticeLines(stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^toolmask: no GPU in use, decoding on the CPU \(cuda: .+; vulkan: .+\); pass gpu: false or set TOOLMASK_QUIET=1 to silence this$/,
    );
    if (packageBinsDir("cuda")) expect(lines[0]).toContain("cuda: no NVIDIA driver loaded");
    else expect(lines[0]).toContain(`cuda: @node-llama-cpp/${packageName("cuda")} is not installed`);
  });

  it("says nothing with TOOLMASK_QUIET=1, or when the CPU was asked for (gpu: false)", () => {
    expect(noticeLines(loadTwice('"auto"', { TOOLMASK_QUIET: "1" }).stderr)).toEqual([]);
    const cpu = loadTwice("false");
    expect(cpu.gpus).toEqual([false, false]);
    expect(noticeLines(cpu.stderr)).toEqual([]);
  });
});

describe("node-llama-cpp's packages and library names per platform", () => {
  it("maps platform, architecture and build to its package", () => {
    expect(packageName("cpu", "linux", "x64")).toBe("linux-x64");
    expect(packageName("cuda", "linux", "x64")).toBe("linux-x64-cuda");
    expect(packageName("cpu", "linux", "arm")).toBe("linux-armv7l");
    expect(packageName("cuda", "linux", "arm64")).toBeUndefined();
    expect(packageName("cpu", "darwin", "arm64")).toBe("mac-arm64-metal");
    expect(packageName("cpu", "darwin", "x64")).toBe("mac-x64");
    expect(packageName("vulkan", "darwin", "arm64")).toBeUndefined();
    expect(packageName("vulkan", "win32", "x64")).toBe("win-x64-vulkan");
    expect(packageName("cpu", "win32", "arm64")).toBe("win-arm64");
    expect(packageName("cpu", "freebsd", "x64")).toBeUndefined();
  });

  it("recognises libllama / libggml as each platform names them, and nothing else", () => {
    expect(libraryFileRe("llama", "linux").test("libllama.v0.4.0.so")).toBe(true);
    expect(libraryFileRe("llama", "linux").test("libllama.cuda.v0.4.0.so")).toBe(true);
    expect(libraryFileRe("llama", "linux").test("libllama-common.so")).toBe(false);
    expect(libraryFileRe("ggml", "linux").test("libggml-base.so")).toBe(false);
    expect(libraryFileRe("llama", "darwin").test("libllama.v0.4.0.dylib")).toBe(true);
    expect(libraryFileRe("llama", "win32").test("llama.vulkan.v0.4.0.dll")).toBe(true);
    expect(libraryFileRe("ggml", "win32").test("ggml.v0.4.0.dll")).toBe(true);
    expect(libraryFileRe("ggml", "win32").test("ggml-cpu-haswell.dll")).toBe(false);
  });
});
