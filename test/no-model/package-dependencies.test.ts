// Every package the shipped code reaches at run time is in "dependencies": a devDependency would be
// missing for a user (check:package catches it only on the paths its call and demo take). The
// scan covers dist/ as compiled (imports, dynamic imports, require / require.resolve) and the
// scripts the package ships. What `npm install toolmask` brings holds no bench renderer or fonts,
// and the tarball (`npm pack --dry-run`) ships no font and no bench code that no command runs.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { timeoutForMeasured } from "../support/timeouts.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith(".js") || p.endsWith(".mjs") ? [p] : [];
  });
}

/**
 * Package names a file loads: `from "x"`, `import("x")`, `require("x")`, `require.resolve("x/…")`,
 * read from the file's syntax tree, so a comment or a string that reads like an import is not one.
 */
function packagesUsed(source: string): string[] {
  const file = ts.createSourceFile("f.mjs", source, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const specifiers: string[] = [];
  const isRequire = (e: ts.Expression) =>
    (ts.isIdentifier(e) && e.text === "require") ||
    (ts.isPropertyAccessExpression(e) &&
      ts.isIdentifier(e.expression) &&
      e.expression.text === "require" &&
      e.name.text === "resolve");
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      specifiers.push((node.moduleSpecifier as ts.StringLiteral).text);
    else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || isRequire(node.expression)) &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      specifiers.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(file);
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

  it("reads imports from the syntax, not from comments or strings", () => {
    const source = [
      'import a from "pkg-a";',
      'export { b } from "@scope/pkg-b/sub";',
      'const c = await import("pkg-c");',
      'const d = require.resolve("pkg-d/package.json");',
      '// read from "not-a-package", whose language has no intersection',
      'const s = "import(\\"nor-this\\")";',
      'import fs from "node:fs";',
    ].join("\n");
    expect(packagesUsed(source)).toEqual(["pkg-a", "@scope/pkg-b", "pkg-c", "pkg-d"]);
  });
});

/** The bench's PNG renderer and its fonts (src/bench/report/png-chart.ts): optional peers, never installed with the package. */
const RENDERER = /resvg|dejavu|fonts?\b|canvas|sharp|puppeteer/i;
/** Font files and native renderer binaries, by name. */
const FONT_OR_RENDERER_FILE = /\.(ttf|otf|woff2?)$|resvg/i;

describe("what npm install toolmask brings", () => {
  it("installs no renderer and no fonts: dependencies and optionalDependencies name none", () => {
    const installed = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies ?? {})];
    expect(installed.length).toBeGreaterThan(3);
    expect(installed.filter((name) => RENDERER.test(name))).toEqual([]);
    // The bench's are declared, as optional peers (npm installs no optional peer).
    expect(
      Object.keys(pkg.peerDependencies)
        .filter((name) => RENDERER.test(name))
        .sort(),
    ).toEqual(["@resvg/resvg-js", "dejavu-fonts-ttf"]);
  });

  it(
    "packs no font, no renderer, no BFCL harness; only png-chart.js names the renderer (npm pack --dry-run)",
    () => {
      const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
        cwd: root,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      });
      const files: string[] = JSON.parse(out)[0].files.map((f: { path: string }) => f.path);
      expect(files).toContain("dist/cli/bench.js"); // the listing is the package's
      expect(files).toContain("dist/bench/report/png-chart.js");
      expect(files.filter((f) => FONT_OR_RENDERER_FILE.test(f))).toEqual([]);
      // The BFCL harness runs in npm run bench:bfcl from a clone, no toolmask command: not shipped.
      expect(files.filter((f) => f.startsWith("dist/bench/bfcl/"))).toEqual([]);
      // The renderer is loaded by name in one file, on first use by toolmask bench.
      const naming = files.filter(
        (f) =>
          /\.(m?js)$/.test(f) && /@resvg\/resvg-js|dejavu-fonts-ttf/.test(readFileSync(path.join(root, f), "utf8")),
      );
      expect(naming).toEqual(["dist/bench/report/png-chart.js"]);
    },
    timeoutForMeasured(3_200),
  );
});
