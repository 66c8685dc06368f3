// The bitmask at every step of a compiled grammar's own seeded random walks: two grammars that should
// mask alike (the same grammar compiled two ways) compared step by step.
import type { CompiledGrammar } from "../../src/index.js";

export function masksAlong(g: CompiledGrammar, walks: { count: number; seed: number; maxTokens: number }): Buffer[] {
  const walker = g.createMatcher();
  const out: Buffer[] = [];
  for (const walk of walker.randomWalks(walks)) {
    const m = g.createMatcher();
    for (const id of walk.tokens) {
      const mask = m.allocateBitmask();
      m.fillNextTokenBitmask(mask);
      out.push(Buffer.from(mask.buffer));
      if (!m.acceptToken(id)) throw new Error(`the walk's token ${id} was refused`);
    }
    m.dispose();
  }
  walker.dispose();
  return out;
}
