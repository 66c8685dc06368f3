// What a plain `import "toolmask"` loads: the parser, the grammar and the engine, not the HTTP
// server's framework. fastify (CommonJS) lands in Node's CommonJS module cache when anything
// imports it, so a fresh process that imports the package and lists that cache shows whether it did.
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..", "..");

/** The node_modules packages a fresh Node process has loaded after running `code` (an ES module). */
function packagesLoadedBy(code: string): string[] {
  const probe = `${code}
import { createRequire } from "node:module";
const cache = createRequire(import.meta.url).cache;
const names = new Set(Object.keys(cache).filter((k) => k.includes("node_modules")).map((k) => {
  const rest = k.slice(k.lastIndexOf("node_modules") + 13).split(/[\\\\/]/);
  return rest[0].startsWith("@") ? rest[0] + "/" + rest[1] : rest[0];
}));
console.log(JSON.stringify([...names].sort()));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", probe], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, TOOLMASK_QUIET: "1" },
  });
  return JSON.parse(out.trim().split("\n").at(-1)!) as string[];
}

describe("importing toolmask", () => {
  it("loads no fastify: the server's framework comes with startServer or toolmask/server", () => {
    const loaded = packagesLoadedBy(
      'const t = await import("toolmask"); if (typeof t.parseToolCalls !== "function" || typeof t.startServer !== "function") throw new Error("missing export");',
    );
    expect(loaded.filter((p) => p.includes("fastify"))).toEqual([]);
  });

  it("the probe sees fastify when the server module is imported (a check that can fail)", () => {
    const loaded = packagesLoadedBy(
      'const s = await import("toolmask/server"); if (typeof s.startServer !== "function") throw new Error("missing export");',
    );
    expect(loaded).toContain("fastify");
  });

  it("toolmask/agent loads the agent loop without the server", () => {
    const loaded = packagesLoadedBy(
      'const a = await import("toolmask/agent"); if (typeof a.runAgent !== "function") throw new Error("missing export");',
    );
    expect(loaded.filter((p) => p.includes("fastify"))).toEqual([]);
  });
});
