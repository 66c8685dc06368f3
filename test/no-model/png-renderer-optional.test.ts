// The bench's PNG chart renderer (@resvg/resvg-js) and its fonts (dejavu-fonts-ttf) are optional
// peer dependencies: `npm install toolmask` installs neither (scripts/build/check-package.mjs
// checks the installed tree), and without them the chart is skipped with what to install.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPngRenderer, PNG_RENDERER_INSTALL, svgToPng } from "../../src/bench/report/png-chart.js";

const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, "..", "..", "package.json"), "utf8"));
const OPTIONAL = ["@resvg/resvg-js", "dejavu-fonts-ttf"];
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><text x="2" y="15">ok</text></svg>';

describe("the PNG chart renderer is optional", () => {
  it("is no runtime dependency: an optional peer, installed here for the tests", () => {
    for (const name of OPTIONAL) {
      expect(pkg.dependencies[name], name).toBeUndefined();
      expect(pkg.optionalDependencies?.[name], name).toBeUndefined();
      expect(pkg.peerDependenciesMeta[name], name).toEqual({ optional: true });
      expect(pkg.devDependencies[name], name).toBe(pkg.peerDependencies[name]);
      expect(PNG_RENDERER_INSTALL).toContain(`${name}@${pkg.peerDependencies[name]}`);
    }
  });

  it("renders a PNG when installed", () => {
    const r = svgToPng(SVG, loadPngRenderer());
    expect("png" in r && [...r.png.subarray(1, 4)].map((c) => String.fromCharCode(c)).join("")).toBe("PNG");
  });

  it("without the packages: no PNG, and a line saying what to install", () => {
    const real = createRequire(import.meta.url);
    const absent = ((id: string) => {
      if (OPTIONAL.some((n) => id.startsWith(n)))
        throw Object.assign(new Error(`Cannot find module '${id}'`), { code: "MODULE_NOT_FOUND" });
      return real(id);
    }) as NodeJS.Require;
    absent.resolve = ((id: string) => {
      throw Object.assign(new Error(`Cannot find module '${id}'`), { code: "MODULE_NOT_FOUND" });
    }) as unknown as NodeJS.RequireResolve;
    const r = svgToPng(SVG, loadPngRenderer(absent));
    expect(r).toEqual({ missing: expect.stringContaining(PNG_RENDERER_INSTALL) });
    expect((r as { missing: string }).missing).toContain("Cannot find module '@resvg/resvg-js'");
  });
});
