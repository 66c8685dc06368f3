// The addon loader as an installed package meets it: a local build first, then the prebuild for
// this platform; when none loads, an error that names what failed and what to install or run.
// Each case is a fresh package folder holding only the compiled loader (dist/native.js).
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const builtAddon = path.join(root, "build", "Release", "toolmask.node");
const plat = `${process.platform}-${process.arch}`;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A package folder with the loader and nothing else; `files` adds paths (relative) with contents or a copy. */
function packageWith(files: Record<string, string | { copy: string }> = {}): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "toolmask-loader-"));
  dirs.push(dir);
  const source = readFileSync(path.join(root, "src", "native.ts"), "utf8");
  const js = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  mkdirSync(path.join(dir, "dist"));
  writeFileSync(path.join(dir, "dist", "native.js"), js);
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    if (typeof content === "string") writeFileSync(path.join(dir, rel), content);
    else copyFileSync(content.copy, path.join(dir, rel));
  }
  return dir;
}

/** Loads the addon in a child process; prints its error message, or "loaded function" when the addon loaded. */
function load(dir: string, env: NodeJS.ProcessEnv = {}): { ok: boolean; text: string } {
  const script = `const { loadNative } = await import(${JSON.stringify(path.join(dir, "dist", "native.js"))});
    try { const a = loadNative(); console.log("loaded " + typeof a.NativeGrammar); } catch (e) { console.log(e.message); process.exit(3); }`;
  const childEnv = { ...process.env, ...env };
  if (!("TOOLMASK_ADDON" in env)) delete childEnv.TOOLMASK_ADDON;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { env: childEnv, encoding: "utf8" });
  return { ok: r.status === 0, text: r.stdout + r.stderr };
}

describe("addon loader", () => {
  it("with no build and no prebuild, says what to install and which command to run", () => {
    const dir = packageWith();
    const r = load(dir);
    expect(r.ok).toBe(false);
    expect(r.text).toContain(`no native addon for ${plat} in ${dir}`);
    expect(r.text).toMatch(/install cmake >= 3\.15, git and a C\+\+17 compiler/);
    expect(r.text).toContain(`\`npm run build:native\` in ${dir}`);
  });

  it("a broken prebuild is named with the reason it failed to load", () => {
    const dir = packageWith({ [`prebuilds/${plat}/toolmask.node`]: "not a shared object" });
    const r = load(dir);
    expect(r.ok).toBe(false);
    expect(r.text).toContain("failed to load");
    expect(r.text).toContain(path.join(dir, "prebuilds", plat, "toolmask.node"));
    expect(r.text).toMatch(/invalid ELF header|not a valid|file too short/i);
    expect(r.text).toContain("npm run build:native");
  });

  it("a prebuild alone loads (no compiler needed), and a broken local build falls through to it", () => {
    expect(load(packageWith({ [`prebuilds/${plat}/toolmask.node`]: { copy: builtAddon } })).text).toContain(
      "loaded function",
    );
    const both = packageWith({
      "build/Release/toolmask.node": "truncated",
      [`prebuilds/${plat}/toolmask.node`]: { copy: builtAddon },
    });
    expect(load(both)).toEqual({ ok: true, text: "loaded function\n" });
  });

  it("TOOLMASK_ADDON naming a missing file is an error, not a silent fallback", () => {
    const dir = packageWith({ [`prebuilds/${plat}/toolmask.node`]: { copy: builtAddon } });
    const r = load(dir, { TOOLMASK_ADDON: path.join(dir, "nope.node") });
    expect(r.ok).toBe(false);
    expect(r.text).toContain(`TOOLMASK_ADDON names ${path.join(dir, "nope.node")}, which does not exist`);
  });
});
