// The export's options and its error, shared by the lowering and every target's entry point.

/** What a grammar is exported for: XGrammar's EBNF, llama.cpp's GBNF, llguidance's Lark. */
export type ExportTarget = "xgrammar" | "gbnf" | "lark";

export interface ToEbnfOptions {
  /** The engine the text is for. Default "xgrammar". */
  target?: "xgrammar" | "gbnf";
  /** @deprecated the former name of `target`. */
  dialect?: "xgrammar" | "gbnf";
  /** Text of a token id (xgrammar target, for `token` nodes given only an id). */
  tokenText?: (id: number) => string | undefined;
  /** Id of a token piece (gbnf target, for `token` nodes given only a piece). */
  tokenId?: (piece: string) => number | undefined;
  /** Largest perm exported (2^n subset rules). Default 8. */
  maxPermItems?: number;
  /** Largest bounded until exported, in rules (terminator length x (maxLength + 1)). Default 4096. */
  maxUntilStates?: number;
  /**
   * Largest intersection exported (a string's pattern, format and length at once), in states of
   * the product written out as a regular grammar. Default 4096.
   */
  maxIntersectStates?: number;
  /** Refuse output with more rules than this. Default 100000. */
  maxRules?: number;
  /** xgrammar: spell "any non-ASCII code point" as UTF-8 byte sequences too (strict UTF-8). Default false. */
  exactUtf8?: boolean;
  /** xgrammar: write `X* rest` as a right-recursive loop rule (much faster masks in 0.1.27). Default true. */
  rightRecursiveLoops?: boolean;
  /**
   * gbnf: texts that one token spells whole, for engines that read that token only as itself
   * (llguidance reads every added token so, even those marked "special": false): a literal holding
   * such a text writes it `("text" | <[id]>)`, and an until whose terminator is one also closes on
   * `<[id]>` from every state where those characters would close it exactly at their end.
   */
  wholeTokens?: ReadonlyMap<string, number>;
  /**
   * xgrammar: write classes as code point ranges, as native XGrammar reads them (checked on 0.2.8:
   * `[\u00e1-\u00ec]` is á..ì there). Default false: the UTF-8 byte classes 0.1.27 (the npm WASM
   * build) needs, which 0.2.8 would read as other code points. Byte classes >= 0x80 then throw.
   */
  codePointClasses?: boolean;
  /**
   * Adjacent plain literals of a sequence (a name `spelled` one character at a time) written as one
   * string. Default true; the Lark target never joins them, as each literal is a lexeme for llguidance.
   */
  joinLiterals?: boolean;
}

/** The lowering's own options: the target resolved, Lark included. */
export type LowerOptions = Omit<ToEbnfOptions, "target" | "dialect"> & { target: ExportTarget };

export class EbnfExportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EbnfExportError";
  }
}

export const TARGET_NAMES: Record<ExportTarget, string> = { xgrammar: "XGrammar", gbnf: "GBNF", lark: "Lark" };
