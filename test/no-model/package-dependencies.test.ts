// Every package the shipped code reaches at run time is in "dependencies": a devDependency would be
// missing for a user (check:package catches it only on the paths its call and demo take). The
// scan covers dist/ as compiled (imports, dynamic imports, require / require.resolve) and the
// scripts the package ships.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".js") || p.endsWith(".mjs") ? [p] : [];
  });
}

/** Package names a file loads: `from "x"`, `import("x")`, `require("x")`, `require.resolve("x/…")`. */
function packagesUsed(source: string): string[] {
  const specifiers = [
    ...source.matchAll(/(?:\bfrom\s*["']|\bimport\s*\(\s*["'`]|\brequire(?:\.resolve)?\(\s*["'`])([^"'`]+)["'`]/g),
  ].map((m) => m[1]!);
  return specifiers
    .filter((s) => /^(@[\w.-]+\/)?[\w.-]+(\/[\w./-]*)?$/.test(s) && !s.startsWith(".") && !builtinModules.includes(s))
    .map((s) => (s.startsWith("@") ? s.split("/").slice(0, 2).join("/") : s.split("/")[0]!));
}

describe("package.json dependencies", () => {
  it("hold every package dist/ and the shipped scripts load", () => {
    const shipped = [
      ...files(path.join(root, "dist")),
      ...pkg.files.filter((f: string) => f.endsWith(".mjs")).map((f: string) => path.join(root, f)),
    ];
    const used = new Map<string, string>();
    for (const f of shipped)
      for (const name of packagesUsed(readFileSync(f, "utf8"))) used.set(name, path.relative(root, f));
    expect([...used.keys()]).toContain("@huggingface/jinja"); // the scan sees imports at all
    // node-llama-cpp's platform packages (@node-llama-cpp/*) come as its optional dependencies;
    // build-native.mjs looks for node-gyp locally first and otherwise uses the copy inside npm.
    const optional = (name: string) => name.startsWith("@node-llama-cpp/") || name === "node-gyp";
    const missing = [...used].filter(([name]) => !(name in pkg.dependencies) && !optional(name));
    expect(missing.map(([name, file]) => `${name} (${file})`)).toEqual([]);
  });
});
