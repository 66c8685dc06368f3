// Whether a model's vocabulary can write what a dialect needs: a grammar it cannot spell would only
// run to maxTokens (or into a dead end), so generate() says so before decoding.
import type { DialectSpec } from "../dialects/spec.js";
import { callTriggerOf, triggerOf } from "../dialects/spec.js";
import { TokenKind } from "../vocab/types.js";
import type { Vocabulary } from "../vocab/vocabulary.js";

const known = new WeakMap<Vocabulary, Map<string, boolean>>();

/** Whether ordinary tokens can spell `text` exactly (a special token counts where its piece is the whole text). */
export function canWrite(vocab: Vocabulary, text: string): boolean {
  let seen = known.get(vocab);
  if (!seen) known.set(vocab, (seen = new Map()));
  let answer = seen.get(text);
  if (answer === undefined) seen.set(text, (answer = spell(vocab, text)));
  return answer;
}

/** Ordinary tokens' bytes grouped by first byte, built once per vocabulary. */
const indexes = new WeakMap<Vocabulary, Uint8Array[][]>();
function byFirstByte(vocab: Vocabulary): Uint8Array[][] {
  let index = indexes.get(vocab);
  if (!index) {
    index = Array.from({ length: 256 }, () => []);
    for (let t = 0; t < vocab.size; t++) {
      if (vocab.kind(t) !== TokenKind.Normal) continue;
      const b = vocab.tokenBytes(t);
      if (b.length) index[b[0]!]!.push(b);
    }
    indexes.set(vocab, index);
  }
  return index;
}

function spell(vocab: Vocabulary, text: string): boolean {
  const bytes = Buffer.from(text, "utf8");
  const id = vocab.idOfPiece(text);
  // A special token is the marker itself (the grammar uses it atomically); a normal one must spell it.
  if (id !== undefined && vocab.kind(id) === TokenKind.Special) return true;
  if (id !== undefined && vocab.kind(id) === TokenKind.Normal && bytes.equals(vocab.tokenBytes(id))) return true;
  const index = byFirstByte(vocab);
  const reach = new Uint8Array(bytes.length + 1);
  reach[0] = 1;
  for (let i = 0; i < bytes.length; i++) {
    if (!reach[i]) continue;
    for (const b of index[bytes[i]!]!) {
      if (i + b.length > bytes.length || reach[i + b.length]) continue;
      let k = 1;
      while (k < b.length && b[k] === bytes[i + k]) k++;
      if (k === b.length) reach[i + b.length] = 1;
    }
  }
  return reach[bytes.length] === 1;
}

/** Throws when the vocabulary cannot write the text that starts a call in this dialect. */
export function assertDialectFits(vocab: Vocabulary, spec: DialectSpec): void {
  for (const marker of new Set([triggerOf(spec), callTriggerOf(spec)])) {
    if (!canWrite(vocab, marker))
      throw new Error(
        `this model's vocabulary cannot write ${JSON.stringify(marker)}, which the ${spec.name} dialect needs to start a call: ` +
          "pass the dialect that matches the model's chat template, or leave `dialect` out to detect it",
      );
  }
}
