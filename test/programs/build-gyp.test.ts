// The addon also builds with node-gyp from binding.gyp (the second build file beside cmake-js's
// CMakeLists.txt), offline: Node's headers come from the installed Node, llama.cpp's from
// node-llama-cpp's bundle. The result must load and decode under a mask like the cmake-js build.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { testModelPath } from "../support/test-model.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const dir = mkdtempSync(path.join(os.tmpdir(), "toolmask-gyp-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("binding.gyp", () => {
  it("builds with node-gyp without network and the addon decodes under a mask", () => {
    for (const f of [
      "binding.gyp",
      "package.json",
      "native",
      "scripts/build/build-native.mjs",
      "scripts/build/llama-source.mjs",
    ])
      cpSync(path.join(root, f), path.join(dir, f), { recursive: true });
    symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: dir,
      TOOLMASK_LLAMA_CPP_DIR: path.join(root, ".cache", "llama.cpp"),
    };
    delete env.npm_config_node_gyp; // the script must find npm's node-gyp itself
    const build = spawnSync(process.execPath, ["scripts/build/build-native.mjs", "--gyp"], {
      cwd: dir,
      env,
      encoding: "utf8",
    });
    expect(build.status, build.stdout + build.stderr).toBe(0);
    expect(build.stdout + build.stderr).not.toMatch(/http|download/i);

    const addon = path.join(dir, "build", "Release", "toolmask.node");
    const script = `
      import { createRequire } from "node:module";
      createRequire(import.meta.url)(${JSON.stringify(addon)});  // loads, or throws here
      const { loadModel, generate } = await import(${JSON.stringify(path.join(root, "dist", "index.js"))});
      const model = await loadModel({ path: ${JSON.stringify(testModelPath())} });
      const tools = [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { enum: ["Paris", "Rome"] } }, required: ["city"] } } }];
      const r = await generate(model, { messages: [{ role: "user", content: "Weather?" }], tools, dialect: "qwen3-coder", seed: 9,
        toolChoice: { type: "function", function: { name: "get_weather" } }, maxTokens: 60, logitBias: { 151657: 100, 151645: 110 } });
      console.log(JSON.stringify({ finishReason: r.finishReason, calls: r.message.tool_calls, maskPath: r.maskPath }));
      model.dispose();`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      env: { ...process.env, TOOLMASK_ADDON: addon },
      encoding: "utf8",
    });
    expect(run.status, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout.trim().split("\n").pop()!);
    expect(out.finishReason).toBe("tool_calls");
    expect(out.maskPath).toBe("cpu");
    expect(out.calls.map((c: { function: { name: string } }) => c.function.name)).toEqual(["get_weather"]);
    expect(["Paris", "Rome"]).toContain(JSON.parse(out.calls[0].function.arguments).city);
  }, 600_000);
});
