// What every vocabulary source (tokenizer.json, GGUF metadata, llama_vocab) produces.

/** How the grammar may use a token. */
export const enum TokenKind {
  /** Ordinary text: its bytes take part in free text and values. */
  Normal = 0,
  /** Control/special token: atomic, matched only by a `token` terminal, never through its text. */
  Special = 1,
  /** End of generation: allowed only where the grammar may end. */
  EndOfGeneration = 2,
  /** Never produced (unused id, padding). */
  Unused = 3,
}

export interface VocabularyData {
  /** Decoded bytes of each token (byte-level BPE unmapped, `▁` → space, `<0x0A>` → 0x0A). */
  tokenBytes: Uint8Array[];
  kinds: Uint8Array;
  /** The token's piece as the tokenizer spells it (for lookups by piece and messages). */
  pieces: string[];
  /** Where it came from, for messages. */
  source: string;
  /**
   * Added tokens that are text (tokenizer.json added_tokens with "special": false, GGUF
   * USER_DEFINED; kind Normal): one token spells their whole text. Engines such as llguidance read
   * them only as themselves, so the Lark export names them (toLark).
   */
  addedTextIds?: readonly number[];
}
