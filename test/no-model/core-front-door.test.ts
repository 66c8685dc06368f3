// native/addon and native/llama reach the grammar core only through its public headers
// (native/core/include/toolmask/, docs/contributing.md): every #include they make, and every one
// those headers make in turn, is followed, and none may land on another file of native/core.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..", "..");

function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.(cpp|hpp|h|cc)$/.test(e.name) ? [path] : [];
  });
}

// The in-tree file an #include names: "x" beside the including file first, then (as <x> does) the
// include directories the build passes (CMakeLists.txt, binding.gyp). Null: outside the tree
// (the standard library, Node's and llama.cpp's headers).
function resolveInclude(root: string, from: string, name: string, quoted: boolean): string | null {
  const dirs = [...(quoted ? [dirname(from)] : []), join(root, "native", "core", "include")];
  for (const d of dirs) {
    const p = resolve(d, name);
    if (existsSync(p)) return p;
  }
  return null;
}

const INCLUDE = /^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>)/gm;

// Each chain of includes from a file of native/addon or native/llama to a file of native/core
// outside native/core/include/toolmask/, as "from -> ... -> core file".
function frontDoorViolations(root: string): string[] {
  const core = join(root, "native", "core") + sep;
  const front = join(root, "native", "core", "include", "toolmask") + sep;
  const starts = ["addon", "llama"].flatMap((d) => sources(join(root, "native", d)));
  const out: string[] = [];
  const seen = new Set<string>();
  const queue = starts.map((f) => [f]);
  while (queue.length > 0) {
    const chain = queue.shift() as string[];
    const file = chain[chain.length - 1] as string;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const m of readFileSync(file, "utf8").matchAll(INCLUDE)) {
      const target = resolveInclude(root, file, m[1] ?? m[2] ?? "", m[1] !== undefined);
      if (!target) continue;
      const next = [...chain, target];
      if (target.startsWith(core) && !target.startsWith(front))
        out.push(next.map((f) => relative(root, f).split(sep).join("/")).join(" -> "));
      else queue.push(next);
    }
  }
  return out;
}

describe("the core's front door", () => {
  it("native/addon and native/llama include nothing of native/core but native/core/include/toolmask", () => {
    expect(sources(join(ROOT, "native", "addon")).length).toBeGreaterThan(3);
    expect(sources(join(ROOT, "native", "llama")).length).toBeGreaterThan(10);
    expect(sources(join(ROOT, "native", "core", "include", "toolmask")).length).toBeGreaterThan(3);
    expect(frontDoorViolations(ROOT)).toEqual([]);
  });

  it("finds a core header reached directly, through the include path, or through a public header", () => {
    const root = mkdtempSync(join(tmpdir(), "toolmask-front-door-"));
    try {
      const put = (path: string, text: string) => {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      };
      put("native/core/include/toolmask/grammar.hpp", '#pragma once\n#include <memory>\n#include "bits.hpp"\n');
      put("native/core/include/toolmask/bits.hpp", "#pragma once\n");
      put("native/core/include/toolmask/leaky.hpp", '#pragma once\n#include "../../internal.hpp"\n');
      put("native/core/internal.hpp", "#pragma once\n");
      put("native/core/grammar.hpp", "#pragma once\n");
      put("native/addon/ok.cpp", '#include <napi.h>\n#include "toolmask/grammar.hpp"\n#include "llama.h"\n');
      put("native/addon/direct.cpp", '#include "toolmask/grammar.hpp"\n  #  include "../core/grammar.hpp"\n');
      put("native/llama/angle.hpp", "#include <toolmask/../../internal.hpp>\n");
      put("native/llama/through.cpp", '#include "angle.hpp"\n#include <toolmask/leaky.hpp>\n');
      expect(frontDoorViolations(root).sort()).toEqual(
        [
          "native/addon/direct.cpp -> native/core/grammar.hpp",
          "native/llama/angle.hpp -> native/core/internal.hpp",
          "native/llama/through.cpp -> native/core/include/toolmask/leaky.hpp -> native/core/internal.hpp",
        ].sort(),
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
