// Over-constraint check: an answer's token ids (from an unmasked run, or any other) replayed
// through a matcher of the grammar that generate() would mask that request with. A valid answer
// the matcher refuses at some token is a mask that forbids valid output. The grammar is the one
// prepareGeneration builds for the same options (dialect, tools, tool choice, parallel calls,
// reasoning, maxValueLength), so the replay judges exactly what masked decoding would enforce.
import { prepareGeneration, type GenerateOptions } from "../engine/generate.js";
import type { LlamaModel } from "../engine/model.js";
import { loadNative, type NativeMatcher } from "../native.js";
import { TokenKind } from "../vocab/types.js";

export interface TokenReplay {
  /** Whether the request has a grammar at all (no dialect and no tools: nothing to replay). */
  masked: boolean;
  /** Tokens replayed. */
  tokens: number;
  /** Tokens the matcher accepted before the first refusal (all of them when none was refused). */
  accepted: number;
  /**
   * The first token the matcher refused: its position, id, piece, and the text accepted before it;
   * `byMask` where the matcher would take it but the mask left its bit off (ReplayOptions.masks).
   */
  refused: { index: number; id: number; piece: string; textBefore: string; byMask?: true } | null;
  /** After the accepted tokens, the text is a complete answer of the grammar. */
  complete: boolean;
  /** An end-of-generation token was accepted. */
  terminated: boolean;
}

/** Options of a replay. */
export interface ReplayOptions {
  /**
   * Also fill the mask before each token (as masked decoding does) and refuse a token whose bit it
   * leaves off, though the matcher would accept it: a mask narrower than the grammar is an
   * over-constraint the matcher alone does not show.
   */
  masks?: boolean;
}

/**
 * Replays `tokens` (ids of `model`'s vocabulary, an end-of-generation id included when the answer
 * stopped) through a fresh matcher of the grammar that `generate(model, options)` masks with.
 * `options.mask` is ignored (the grammar is built as for a masked run).
 */
export async function replayThroughMask(
  model: LlamaModel,
  options: GenerateOptions,
  tokens: readonly number[],
  replay: ReplayOptions = {},
): Promise<TokenReplay> {
  return (await replayEachThroughMask(model, options, [tokens], replay))[0]!;
}

/** replayThroughMask for each of `answers`, the grammar built once. */
export async function replayEachThroughMask(
  model: LlamaModel,
  options: GenerateOptions,
  answers: ReadonlyArray<readonly number[]>,
  replay: ReplayOptions = {},
): Promise<TokenReplay[]> {
  const { signal: _s, ...rest } = options;
  const prepared = await prepareGeneration(model, { ...rest, mask: true });
  const grammar = prepared.request.grammar;
  if (!grammar)
    return answers.map((tokens) => ({
      masked: false,
      tokens: tokens.length,
      accepted: tokens.length,
      refused: null,
      complete: true,
      terminated: false,
    }));
  const matcher = new (loadNative().NativeMatcher)(grammar);
  grammar.dispose(); // the matcher holds the grammar
  const mask = replay.masks ? new Uint32Array(Math.ceil(model.vocabulary.size / 32)) : undefined;
  try {
    return answers.map((tokens) => {
      matcher.reset();
      return replayOne(model, matcher, tokens, mask);
    });
  } finally {
    matcher.dispose();
  }
}

function replayOne(
  model: LlamaModel,
  matcher: NativeMatcher,
  tokens: readonly number[],
  mask: Uint32Array | undefined,
): TokenReplay {
  const decoder = new TextDecoder();
  let textBefore = "";
  for (let i = 0; i < tokens.length; i++) {
    const id = tokens[i]!;
    let allowed = true;
    if (mask) {
      matcher.fillNextTokenBitmask(mask);
      allowed = (mask[id >>> 5]! & (1 << (id & 31))) !== 0;
    }
    if (!allowed || !matcher.acceptToken(id))
      return {
        masked: true,
        tokens: tokens.length,
        accepted: i,
        refused: {
          index: i,
          id,
          piece: model.vocabulary.piece(id),
          textBefore: textBefore + decoder.decode(),
          ...(allowed ? {} : { byMask: true }),
        },
        complete: matcher.isComplete(),
        terminated: false,
      };
    textBefore += decoder.decode(model.vocabulary.tokenBytes(id), { stream: true });
  }
  return {
    masked: true,
    tokens: tokens.length,
    accepted: tokens.length,
    refused: null,
    complete: matcher.isComplete(),
    terminated: matcher.isTerminated(),
  };
}

/** Whether `tokens` end with an end-of-generation token of `model` (the model ended the answer; not a cut). */
export function endedByModel(model: LlamaModel, tokens: readonly number[]): boolean {
  const last = tokens[tokens.length - 1];
  return last !== undefined && model.vocabulary.kind(last) === TokenKind.EndOfGeneration;
}
