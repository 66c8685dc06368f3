// No module of src/ imports itself through others: every static import and re-export between src/
// files is an edge, type-only ones included (a type cycle ties the modules' designs together even
// though it loads nothing), and the graph has no cycle (dynamic import() is lazy and left out).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "..", "..", "src");

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** The src/ files `file` imports or re-exports from, `import type` and `export type` included. */
function staticImports(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(?:type\s+)?(?:[^;"']*?\s+from\s+)?["'](\.[^"']+)["']/gm))
    out.push(resolve(dirname(file), m[2]!.replace(/\.js$/, ".ts")));
  return out;
}

function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const visit = (u: string) => {
    state.set(u, 1);
    stack.push(u);
    for (const v of graph.get(u) ?? []) {
      if (state.get(v) === 1) found.push([...stack.slice(stack.indexOf(v)), v]);
      else if (!state.has(v)) visit(v);
    }
    stack.pop();
    state.set(u, 2);
  };
  for (const u of graph.keys()) if (!state.has(u)) visit(u);
  return found;
}

describe("src/ import graph", () => {
  const graph = new Map(files(SRC).map((f) => [f, staticImports(f, readFileSync(f, "utf8"))]));

  it("has no cycle", () => {
    expect(cycles(graph).map((c) => c.map((f) => relative(SRC, f)).join(" -> "))).toEqual([]);
  });

  it("the scan sees the edges that make a cycle (a check that can fail)", () => {
    const a = join(SRC, "a.ts"),
      b = join(SRC, "b.ts"),
      c = join(SRC, "c.ts");
    const toy = new Map([
      [a, staticImports(a, 'import { x } from "./b.js";\nimport type { T } from "./c.js";')],
      [b, staticImports(b, 'export { y } from "./a.js";\nconst z = await import("./c.js");')],
      [c, staticImports(c, 'import type {\n  U,\n} from "./a.js";\nexport type { V } from "./b.js";')],
    ]);
    expect(toy.get(a)).toEqual([b, c]);
    expect(toy.get(b)).toEqual([a]);
    expect(toy.get(c)).toEqual([a, b]);
    expect(cycles(toy).map((x) => x.map((f) => relative(SRC, f)))).toEqual([
      ["a.ts", "b.ts", "a.ts"],
      ["a.ts", "c.ts", "a.ts"],
    ]);
    expect(graph.size).toBeGreaterThan(100);
  });

  it("each API's folder of src/server imports nothing from another API's folder (what they share sits beside them)", () => {
    const apis = ["chat", "responses", "anthropic"].map((d) => join(SRC, "server", d));
    const crossing = [...graph].flatMap(([file, imports]) => {
      const own = apis.find((d) => file.startsWith(`${d}/`));
      return own === undefined
        ? []
        : imports
            .filter((to) => apis.some((d) => d !== own && to.startsWith(`${d}/`)))
            .map((to) => `${relative(SRC, file)} -> ${relative(SRC, to)}`);
    });
    expect(crossing).toEqual([]);
    expect(graph.has(join(SRC, "server", "chat", "request.ts"))).toBe(true);
  });
});
