// Random walks of a tool grammar built from hostile or wide schemas: every finished walk must
// parse as complete calls of declared tools with their required arguments (the parser
// invariant: what the grammar accepts, the parser calls complete).
import {
  buildToolGrammar,
  compileGrammar,
  parseToolCalls,
  resolveRequest,
  type ParserOptions,
} from "../../src/index.js";
import { qwen3 } from "./vocabs.js";
import { checkComplete, walkStart } from "./walks.js";

export interface WalkReport {
  finished: number;
  failures: string[];
}

/** `walks` random walks from the dialect's trigger; short, loop-leaving tokens so walks end. */
export function walkCalls(
  options: ParserOptions & { maxValueLength?: number },
  walks: number,
  maxTokens = 1500,
): WalkReport {
  const v = qwen3();
  const m = compileGrammar(buildToolGrammar(options), v).createMatcher();
  const start = walkStart(options);
  if (!m.acceptString(start))
    return { finished: 0, failures: [`the grammar refuses the trigger ${JSON.stringify(start)}`] };
  const failures: string[] = [];
  let finished = 0;
  const request = resolveRequest(options); // once for every walk
  const all = m.randomWalks({
    count: walks,
    seed: 7,
    maxTokens,
    leaveProbability: 0.9,
    shortProbability: 0.9,
    endProbability: 0.9,
    probes: 8,
  });
  for (const [seed, walk] of all.entries()) {
    if (walk.stuck) failures.push(`seed ${seed}: the grammar allowed no token before it could end`);
    if (!walk.terminated) continue;
    finished++;
    const text = Buffer.concat([
      Buffer.from(start),
      ...[...walk.tokens.subarray(0, -1)].map((id) => v.tokenBytes(id)),
    ]).toString("utf8");
    const bad = checkComplete(text, options, parseToolCalls(text, request));
    if (bad) failures.push(`seed ${seed}: ${bad}\n${text.slice(0, 2000)}`);
  }
  return { finished, failures };
}
