// The public Vocabulary: token bytes and kinds from any source, prepared natively for masking.
import { loadNative, type NativeVocabulary, type RuleLibraryStats, type ShapeCacheStats } from "../native.js";
import { loadTokenizerJson } from "./tokenizer-json.js";
import { loadGgufVocabulary } from "./gguf.js";
import { TokenKind, type VocabularyData } from "./types.js";

export class Vocabulary {
  /** @internal */ readonly native: NativeVocabulary;
  readonly size: number;
  readonly source: string;
  /** Ids that end generation; allowed only where the grammar may end. */
  readonly endOfGenerationIds: readonly number[];
  /** Added tokens that are text to us (kind Normal) and a whole-token unit to their tokenizer (see VocabularyData). */
  readonly addedTextIds: readonly number[];
  /** Content hash: a compiled grammar works only with the vocabulary it was compiled for. */
  readonly hash: string;
  readonly #data: VocabularyData;
  #byPiece?: Map<string, number>;

  private constructor(data: VocabularyData) {
    const n = data.tokenBytes.length;
    if (n === 0) throw new Error(`vocabulary from ${data.source} has no tokens`);
    if (data.kinds.length !== n || data.pieces.length !== n)
      throw new Error(
        `vocabulary from ${data.source} is inconsistent: ${n} tokens, ${data.kinds.length} kinds, ${data.pieces.length} pieces`,
      );
    let total = 0;
    for (const b of data.tokenBytes) total += b.length;
    const bytes = new Uint8Array(total);
    const offsets = new Uint32Array(n + 1);
    let at = 0;
    data.tokenBytes.forEach((b, i) => {
      bytes.set(b, at);
      at += b.length;
      offsets[i + 1] = at;
    });
    this.native = new (loadNative().NativeVocabulary)(bytes, offsets, data.kinds);
    this.#data = data;
    this.size = n;
    this.source = data.source;
    this.hash = this.native.hash;
    const eog: number[] = [];
    data.kinds.forEach((k, i) => {
      if (k === TokenKind.EndOfGeneration) eog.push(i);
    });
    this.endOfGenerationIds = eog;
    this.addedTextIds = (data.addedTextIds ?? []).filter(
      (id) => Number.isInteger(id) && id >= 0 && id < n && data.kinds[id] === TokenKind.Normal,
    );
  }

  /** From a Hugging Face tokenizer.json (a path to the file or its folder, or the parsed object). */
  static fromTokenizerJson(pathOrObject: string | object, opts?: { eogPieces?: string[] }): Vocabulary {
    if (typeof pathOrObject !== "string" && (typeof pathOrObject !== "object" || pathOrObject === null))
      throw new TypeError("Vocabulary.fromTokenizerJson expects a path to tokenizer.json or its parsed object");
    return new Vocabulary(loadTokenizerJson(pathOrObject, opts));
  }

  /** From a GGUF file's tokenizer.ggml.* metadata (no llama.cpp needed). */
  static fromGguf(path: string): Vocabulary {
    if (typeof path !== "string") throw new TypeError("Vocabulary.fromGguf expects a path to a .gguf file");
    return new Vocabulary(loadGgufVocabulary(path));
  }

  /** From already-decoded token data (e.g. read from a loaded model). */
  static fromData(data: VocabularyData): Vocabulary {
    return new Vocabulary(data);
  }

  /**
   * The masks of loop fragments (string contents, free text, numbers, whitespace) are kept per
   * vocabulary and shared by every grammar compiled for it: a grammar using a shape another grammar
   * already used pays nothing for its masks.
   */
  get shapeCache(): ShapeCacheStats {
    return this.native.shapeCache;
  }
  /** Drops the cached shapes (grammars using one keep theirs): the next grammar builds its own again. */
  clearShapeCache(): void {
    this.native.clearShapeCache();
  }

  /**
   * The JSON-schema lowering's shared rules (a JSON string's characters, numbers, formats) are read
   * by the native compile once per vocabulary and kept: a later grammar names them instead of
   * carrying them.
   */
  get ruleLibrary(): RuleLibraryStats {
    return this.native.ruleLibrary;
  }
  /** Drops the kept rules (grammars using one keep theirs): the next grammar that names one sends it again. */
  clearRuleLibrary(): void {
    this.native.clearRuleLibrary();
  }

  /** Words in a token bitmask: ⌈size/32⌉. */
  get bitmaskWords(): number {
    return Math.ceil(this.size / 32);
  }

  tokenBytes(id: number): Uint8Array {
    return this.#token(id, this.#data.tokenBytes);
  }
  piece(id: number): string {
    return this.#token(id, this.#data.pieces);
  }
  kind(id: number): TokenKind {
    return this.#token(id, this.#data.kinds as unknown as TokenKind[]);
  }

  /** The id of a token by its piece as the tokenizer spells it, or undefined. */
  idOfPiece(piece: string): number | undefined {
    if (!this.#byPiece) {
      this.#byPiece = new Map();
      this.#data.pieces.forEach((p, i) => {
        if (!this.#byPiece!.has(p)) this.#byPiece!.set(p, i);
      });
    }
    return this.#byPiece.get(piece);
  }

  #token<T>(id: number, arr: ArrayLike<T>): T {
    if (!Number.isInteger(id) || id < 0 || id >= this.size)
      throw new RangeError(`token id ${id} is outside the vocabulary (0..${this.size - 1})`);
    return arr[id]!;
  }
}
