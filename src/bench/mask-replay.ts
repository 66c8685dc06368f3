// Our mask time per token, token by token: the masked runs' sampled tokens replayed through a
// matcher of the same grammar, timing each fillNextTokenBitmask (what the sampler asks for at
// every step). Decoding itself only reports a per-run total; this gives the median and the p99.
import { compileGrammar } from "../grammar/compile.js";
import type { Grammar } from "../grammar/ir.js";
import type { Vocabulary } from "../vocab/vocabulary.js";

export interface ReplayTiming {
  samplesNs: number[];
  refused: number;
}

export function replayMasks(grammar: Grammar, vocab: Vocabulary, walks: number[][]): ReplayTiming {
  const matcher = compileGrammar(grammar, vocab).createMatcher();
  const buf = matcher.allocateBitmask();
  const samplesNs: number[] = [];
  let refused = 0;
  // One untimed pass first (caches warm), as XGrammar's timing gets.
  for (const [pass, walk] of [[-1, walks[0] ?? []] as const, ...walks.map((w) => [0, w] as const)]) {
    matcher.reset();
    for (const id of walk) {
      if (matcher.isTerminated()) break;
      const t0 = process.hrtime.bigint();
      matcher.fillNextTokenBitmask(buf);
      if (pass === 0) samplesNs.push(Number(process.hrtime.bigint() - t0));
      // A sampled token the matcher refuses would be a toolmask bug: count it, the report shows it.
      if (!matcher.acceptToken(id)) {
        if (pass === 0) refused++;
        break;
      }
    }
  }
  return { samplesNs, refused };
}
