// No source file of the library is over 600 lines: every .ts file under src/ and every C++ file
// under native/ except native/tests/, counted after `npm run format` (Biome, 120 columns).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..", "..");
const MAX_LINES = 600;

function files(dir: string, keep: (name: string) => boolean, skip: Set<string>): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return skip.has(path) ? [] : files(path, keep, skip);
    return keep(e.name) ? [path] : [];
  });
}

describe("file sizes", () => {
  const sources = [
    ...files(join(ROOT, "src"), (n) => n.endsWith(".ts"), new Set()),
    ...files(join(ROOT, "native"), (n) => /\.(cpp|hpp|h|cc)$/.test(n), new Set([join(ROOT, "native", "tests")])),
  ];

  it("finds the sources", () => {
    expect(sources.length).toBeGreaterThan(100);
  });

  it(`keeps every file of src/ and native/ (tests aside) at ${MAX_LINES} lines or fewer`, () => {
    const over = sources
      .map((f) => ({ file: relative(ROOT, f), lines: readFileSync(f, "utf8").split("\n").length - 1 }))
      .filter((f) => f.lines > MAX_LINES)
      .map((f) => `${f.file}: ${f.lines} lines`);
    expect(over).toEqual([]);
  });
});
