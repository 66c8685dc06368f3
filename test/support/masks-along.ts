// The bitmask at every step of a compiled grammar's own seeded random walks: two grammars that should
// mask alike (the same grammar compiled two ways) compared step by step.
import type { CompiledGrammar, GrammarMatcher } from "../../src/index.js";

/**
 * `g`'s masks along the seeded random walks of `walker` (by default `g` itself), every walk and
 * every matcher of `g` starting from `enter` applied to a fresh matcher (by default the grammar's
 * start). Where `g` refuses a walk's token that walk ends: the masks up to there already differ.
 */
export function masksAlong(
  g: CompiledGrammar,
  walks: { count: number; seed: number; maxTokens: number; specialProbability?: number; endProbability?: number },
  walker: CompiledGrammar = g,
  enter: (m: GrammarMatcher) => GrammarMatcher = (m) => m,
): Buffer[] {
  const start = enter(walker.createMatcher());
  const out: Buffer[] = [];
  for (const walk of start.randomWalks(walks)) {
    const m = enter(g.createMatcher());
    for (const id of walk.tokens) {
      const mask = m.allocateBitmask();
      m.fillNextTokenBitmask(mask);
      out.push(Buffer.from(mask.buffer));
      if (!m.acceptToken(id)) {
        if (walker === g) throw new Error(`the walk's token ${id} was refused`);
        break;
      }
    }
    m.dispose();
  }
  start.dispose();
  return out;
}
