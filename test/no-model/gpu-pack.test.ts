// scripts/gpu/prune-fatbin.mjs shrinks node-llama-cpp's CUDA library for the GPU check
// (scripts/gpu/check.sh): only the chosen architecture's entries remain, and nothing outside the
// fat binaries moves, so the loader's pointers into the file stay valid.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without types
import { describeFatbins, fatbinSection, pruneFatbins } from "../../scripts/gpu/prune-fatbin.mjs";

function cudaLibrary(): string | undefined {
  try {
    const pkg = path.dirname(path.dirname(createRequire(import.meta.url).resolve("@node-llama-cpp/linux-x64-cuda")));
    const lib = path.join(pkg, "bins", "linux-x64-cuda", "libggml-cuda.so");
    return existsSync(lib) ? lib : undefined;
  } catch {
    return undefined;
  }
}

const lib = cudaLibrary();

describe.skipIf(!lib)("prune-fatbin on node-llama-cpp's libggml-cuda.so", () => {
  it("keeps only sm_90 entries and leaves every byte outside .nv_fatbin as it was", () => {
    const original = readFileSync(lib!);
    const pruned = Buffer.from(original);
    const before = describeFatbins(original) as Record<string, number>;
    expect(before["ptx_90"]).toBeGreaterThan(0);
    expect(Object.keys(before).length).toBeGreaterThan(1);
    const stats = pruneFatbins(pruned, 90);
    expect(stats.pruned).toBe(stats.fatbins);
    expect(describeFatbins(pruned)).toEqual({ ptx_90: before["ptx_90"] });
    expect(pruned.length).toBe(original.length);
    const [start, size] = fatbinSection(original) as [number, number];
    expect(start).toBeGreaterThan(0);
    expect(pruned.subarray(0, start).equals(original.subarray(0, start))).toBe(true);
    expect(pruned.subarray(start + size).equals(original.subarray(start + size))).toBe(true);
    expect(stats.droppedBytes).toBeGreaterThan(stats.keptBytes);
  });

  it("refuses a file that is not a CUDA library", () => {
    expect(() =>
      pruneFatbins(Buffer.from("not an elf file at all, just text....................................."), 90),
    ).toThrow(/not an ELF64 file/);
  });
});
