// The grammar IR: plain, JSON-serialisable data. Built here in TS, compiled natively.
// Every node describes a set of byte strings (plus atomic special tokens).

/**
 * An exact UTF-8 string. With `marker`, it is a protocol marker: where the vocabulary has a
 * special token spelled exactly so, only that token matches (atomic); otherwise the text.
 */
export interface LiteralNode {
  type: "literal";
  text: string;
  marker?: boolean;
  /** Exported to Lark one character per lexeme (builders' `spelled`); the same text to every other reader. */
  spelled?: boolean;
}
/** One Unicode code point from a set of inclusive ranges (UTF-8 encoded). `negated` = any code point NOT in the ranges. */
export interface CharClassNode {
  type: "charClass";
  ranges: Array<[number, number]>;
  negated?: boolean;
}
/** One raw byte from a set of inclusive ranges (0..255). For binary-ish grammars; prefer charClass. */
export interface ByteClassNode {
  type: "byteClass";
  ranges: Array<[number, number]>;
  negated?: boolean;
}
/**
 * call: the items are one declared tool call (after its trigger). Matching is unchanged; the
 * native matcher's token budget does not let a call open that cannot close in the tokens left.
 * budgetAtEntry (with call): the call is entered without a byte (a response format's JSON after
 * optional whitespace); where the output stands at its entry with that text still open, the budget
 * acts as outside every call, so the text before it is not taken where the call could not close.
 * endToken (with budgetAtEntry): only the end of generation follows the call (a response format's
 * JSON), and the budget counts that token too.
 * filler: the items are text before a call that must come (the whitespace and the trigger before the
 * first call under toolChoice "required"): the token budget leaves out a token of it after which the
 * answer could no longer finish in the tokens left. Other text is never cut short to fit.
 */
export interface SeqNode {
  type: "seq";
  items: GrammarNode[];
  call?: boolean;
  budgetAtEntry?: boolean;
  endToken?: boolean;
  filler?: boolean;
}
export interface AltNode {
  type: "alt";
  items: GrammarNode[];
}
/** item repeated min..max times (max null = unbounded). optional = repeat 0..1. */
export interface RepeatNode {
  type: "repeat";
  item: GrammarNode;
  min: number;
  max: number | null;
}
/**
 * Any valid UTF-8 text that does not contain `terminator`, then the terminator itself.
 * The FIRST occurrence of the terminator closes it — the exact rule a parser uses.
 * `maxLength` / `minLength` bound the text before the terminator, in code points; with
 * `trimNewline`, a newline that is the text's first character and one that is its last are
 * padding, not counted (the terminator's first character must not recur in it).
 */
export interface UntilNode {
  type: "until";
  terminator: string;
  maxLength?: number;
  minLength?: number;
  trimNewline?: boolean;
  marker?: boolean;
  /**
   * Only the texts `body` matches (text nodes only: no tokens, any-order sets or recursion), up to
   * the first terminator: the product of body and terminator, built natively. With `trimNewline`,
   * a text that starts with a newline has it as padding, and then one that ends with a newline
   * has it as padding (what a parser strips), and `body` matches the text without them. The
   * terminator's first character must not recur in it; no `maxLength`/`minLength` (bound the body).
   */
  body?: GrammarNode;
}
/**
 * The texts that every item matches (text nodes only: no tokens, any-order sets or recursion): a
 * string that must match two patterns, a pattern and a length, a format and both. Built natively
 * as the product of the items' automata over bytes, only the states reachable from its start (a
 * counted repetition in an item stays counted). `path`: where it was asked for (the JSON pointer
 * of a schema), which the error for a product past the engine's limit names.
 */
export interface IntersectNode {
  type: "intersect";
  items: GrammarNode[];
  path?: string;
}
/** Any valid UTF-8 text (possibly empty) that does not contain `exclude`; it may end anywhere. */
export interface TextNode {
  type: "text";
  exclude: string;
  maxLength?: number;
  marker?: boolean;
}
/** A special (control) token matched only as that token, never through its text. */
export interface TokenNode {
  type: "token";
  id?: number;
  piece?: string;
}
/**
 * Items in any order, each at most once; `required` items must all appear.
 * `separator` goes between consecutive items (not before the first, not after the last).
 */
export interface PermNode {
  type: "perm";
  items: Array<{ node: GrammarNode; required: boolean }>;
  separator?: GrammarNode;
}
/** A JSON value matching a JSON schema (lowered to the other nodes before compiling). */
export interface JsonSchemaNode {
  type: "jsonSchema";
  schema: unknown;
  options?: JsonSchemaOptions;
  /** Where the schema sits in the request (e.g. `tools[3].function.parameters`): errors name paths from here. Default `$`. */
  path?: string;
  /** Schemas the one at `path` is nested in (an XML parameter's value: 1, its tool's parameters), for the nesting limit. Default 0. */
  depth?: number;
  /** The document `$ref`s resolve in (a tool's parameters, when `schema` is one parameter's schema), found at `rootPath`. Default: `schema` at `path`. */
  document?: unknown;
  documentPath?: string;
}
/**
 * One string that leaves every word of `words` at its last character: a proper prefix of some
 * word (possibly empty), then one code point that continues no word from there and is in none of
 * the `outside` ranges (with `onward`, a non-empty prefix). A whole word is not matched, nor
 * anything past one. The same language as
 * its expansion (src/grammar/departure.ts: an alternative of a negated class and each continuing
 * character per trie position), built natively from the words' trie.
 */
export interface DepartureNode {
  type: "departure";
  words: string[];
  outside?: Array<[number, number]>;
  /** The first character continues some word (the empty prefix is no way out). */
  onward?: boolean;
}
/** A reference to a named rule in `Grammar.rules`. Recursion is expanded to `maxRecursionDepth`. */
export interface RefNode {
  type: "ref";
  name: string;
}

export interface JsonSchemaOptions {
  /** Whitespace allowed between JSON tokens: "compact" (none), "single" (optional single space after , and :), "any" (bounded runs). Default "single". */
  whitespace?: "compact" | "single" | "any";
  /** Maximum nesting of free-form JSON values (objects/arrays without a schema). Default 6. */
  maxFreeNesting?: number;
  /**
   * How values are spelled: "json" (default), or "python" — Python literals as str()/repr() writes
   * them ('a' or "a" with Python escapes, True/False/None), for the SAME set of values.
   */
  syntax?: "json" | "python" | "raw";
  /**
   * With syntax "raw" (an XML parameter's value): the text that closes the value, and whether one
   * newline after the value's open and one before `close` are padding. A string is its characters
   * as written, without quotes or escapes, up to the first `close`; other types are not raw text.
   */
  raw?: { close: string; trimNewline: boolean };
  /**
   * Longest string VALUE, in characters (object keys are not values); a schema's own maxLength
   * still applies when smaller. Strings constrained by a pattern or a format are not bounded by it.
   */
  maxStringLength?: number;
}

export type GrammarNode =
  | LiteralNode
  | CharClassNode
  | ByteClassNode
  | SeqNode
  | AltNode
  | RepeatNode
  | IntersectNode
  | UntilNode
  | TextNode
  | TokenNode
  | PermNode
  | JsonSchemaNode
  | DepartureNode
  | RefNode;

export interface Grammar {
  root: GrammarNode;
  rules?: Record<string, GrammarNode>;
  /** Recursive refs are expanded to this depth; deeper nesting is not accepted. Default 8. */
  maxRecursionDepth?: number;
}
