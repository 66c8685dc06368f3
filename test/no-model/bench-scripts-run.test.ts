// Every benchmark runs in npm test at its smallest size, so none rots unseen: each `bench*` script
// of package.json that runs a scripts/bench/*.mjs file, and each scripts/bench/bench-*.mjs file
// that no other script imports (a bench run by hand), is named (as "<file>.mjs") by a test file
// that also passes --smallest. The tests are test/*/bench-smallest-*.test.ts and bench-stalls.test.ts.
// A module only the benches use lives beside them in scripts/bench/lib/; scripts/lib/ holds what
// the tests or the other scripts use too.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "../support/vocabs.js";

const testFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith(".test.ts") ? [join(dir, e.name)] : [],
  );
const tests = testFiles(join(ROOT, "test")).map((f) => ({ file: relative(ROOT, f), text: readFileSync(f, "utf8") }));
const benchDir = join(ROOT, "scripts", "bench");
const benchFiles = readdirSync(benchDir).filter((f) => f.endsWith(".mjs"));
const scriptTexts = [
  ...benchFiles.map((f) => readFileSync(join(benchDir, f), "utf8")),
  ...readdirSync(join(ROOT, "scripts", "lib"))
    .filter((f) => f.endsWith(".mjs"))
    .map((f) => readFileSync(join(ROOT, "scripts", "lib", f), "utf8")),
];

/** The test files that name `file` (quoted, as a spawn's argument or a path segment) and pass --smallest. */
const runBy = (file: string) =>
  tests.filter((t) => t.text.includes(`"${file}"`) && t.text.includes('"--smallest"')).map((t) => t.file);

it("every npm bench* script that runs scripts/bench/*.mjs is run by a test with --smallest", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
  const named = Object.entries(pkg.scripts)
    .filter(([name]) => /^bench(:|$)/.test(name))
    .flatMap(([name, command]) =>
      [...command.matchAll(/scripts\/bench\/([\w.-]+\.mjs)/g)].map((m): [string, string] => [name, m[1]!]),
    );
  expect(named.length).toBeGreaterThan(5);
  const unrun = named.filter(([, file]) => runBy(file).length === 0).map(([name, file]) => `${name}: ${file}`);
  expect(unrun, "give the bench a --smallest size and a test that runs it (test/*/bench-smallest-*.test.ts)").toEqual(
    [],
  );
});

it("every scripts/bench/bench-*.mjs that no script imports is run by a test with --smallest", () => {
  const entries = benchFiles.filter(
    (f) => f.startsWith("bench-") && !scriptTexts.some((t) => t.includes(`import("./${f}")`) || t.includes(`"${f}")`)),
  );
  expect(entries.length).toBeGreaterThan(5);
  const unrun = entries.filter((f) => runBy(f).length === 0);
  expect(unrun, "give the bench a --smallest size and a test that runs it (test/*/bench-smallest-*.test.ts)").toEqual(
    [],
  );
});

/** The .mjs / .ts files under `dir`, every depth. */
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? e.name === "node_modules"
        ? []
        : sources(join(dir, e.name))
      : /\.(mjs|ts)$/.test(e.name) && !e.name.endsWith(".d.mts")
        ? [join(dir, e.name)]
        : [],
  );

it("every scripts/lib module is used outside scripts/bench (a bench-only module is in scripts/bench/lib)", () => {
  const libDir = join(ROOT, "scripts", "lib");
  const outside = [...sources(join(ROOT, "test")), ...sources(join(ROOT, "scripts")), ...sources(join(ROOT, "src"))]
    .filter((f) => !f.startsWith(benchDir))
    .map((f) => ({ file: f, text: readFileSync(f, "utf8") }));
  const modules = readdirSync(libDir).filter((f) => f.endsWith(".mjs"));
  expect(modules.length).toBeGreaterThan(10);
  const benchOnly = modules.filter(
    (m) => !outside.some((o) => o.file !== join(libDir, m) && o.text.includes(`${m.replace(/\.mjs$/, "")}.mjs`)),
  );
  expect(benchOnly, "move a module only scripts/bench uses to scripts/bench/lib/").toEqual([]);
  // bench-setup.mjs, shared by every decode bench, is the benches' own.
  expect(readdirSync(join(benchDir, "lib"))).toContain("bench-setup.mjs");
});
