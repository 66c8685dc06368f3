// Small constructors for the grammar IR, so grammars read like grammars.
import type {
  GrammarNode,
  LiteralNode,
  CharClassNode,
  SeqNode,
  AltNode,
  RepeatNode,
  UntilNode,
  TokenNode,
  PermNode,
  RefNode,
  JsonSchemaNode,
  JsonSchemaOptions,
  ByteClassNode,
  TextNode,
  IntersectNode,
} from "./ir.js";

export const literal = (text: string): LiteralNode => ({ type: "literal", text });
/** A protocol marker: its special token where the vocabulary has one, else its text. */
export const marker = (text: string): LiteralNode => ({ type: "literal", text, marker: true });
export const seq = (...items: GrammarNode[]): SeqNode => ({ type: "seq", items });
/**
 * One declared tool call (SeqNode.call): what the token budget keeps from opening when it cannot
 * close. `atEntry`: it is entered without a byte, and the budget acts at its entry (SeqNode.budgetAtEntry);
 * `endToken`: only the end of generation follows it, which the budget counts too (SeqNode.endToken).
 */
export const declaredCall = (item: GrammarNode, atEntry = false, endToken = false): SeqNode => ({
  type: "seq",
  items: [item],
  call: true,
  ...(atEntry ? { budgetAtEntry: true } : {}),
  ...(atEntry && endToken ? { endToken: true } : {}),
});
/** Text before a call that must come (SeqNode.filler): the token budget takes it only where the call still fits after it. */
export const filler = (item: GrammarNode): SeqNode => ({ type: "seq", items: [item], filler: true });
/**
 * `text` one character at a time: literal(text)'s language, one node. Exported for a lexer-based
 * engine (llguidance's greedy lexer), each character is its own lexeme (export/lower.ts), so a path
 * that spells a prefix of `text` and then leaves it (a name no tool has) is not hidden behind one
 * longer lexeme.
 */
export const spelled = (text: string): LiteralNode => ({ type: "literal", text, spelled: true });
export const alt = (...items: GrammarNode[]): AltNode => ({ type: "alt", items });
export const repeat = (item: GrammarNode, min: number, max: number | null): RepeatNode => ({
  type: "repeat",
  item,
  min,
  max,
});
/** The texts every one of `items` matches (IntersectNode); `path` names where it was asked for in errors. */
export const intersect = (items: GrammarNode[], path?: string): IntersectNode => ({
  type: "intersect",
  items,
  ...(path === undefined ? {} : { path }),
});
export const optional = (item: GrammarNode): RepeatNode => repeat(item, 0, 1);
export const star = (item: GrammarNode): RepeatNode => repeat(item, 0, null);
export const plus = (item: GrammarNode): RepeatNode => repeat(item, 1, null);
export const charClass = (ranges: Array<[number, number] | string>, negated = false): CharClassNode => ({
  type: "charClass",
  ranges: ranges.map((r) => (typeof r === "string" ? toRange(r) : r)),
  ...(negated ? { negated } : {}),
});
/** Any text: every code point, any number of times. */
export const anyText = (): RepeatNode => star(charClass([[0, 0x10ffff]]));
export const byteClass = (ranges: Array<[number, number]>, negated = false): ByteClassNode => ({
  type: "byteClass",
  ranges,
  ...(negated ? { negated } : {}),
});
export const until = (
  terminator: string,
  opts: { maxLength?: number; minLength?: number; trimNewline?: boolean; marker?: boolean } = {},
): UntilNode => ({
  type: "until",
  terminator,
  ...opts,
});
export const text = (exclude: string, opts: { maxLength?: number; marker?: boolean } = {}): TextNode => ({
  type: "text",
  exclude,
  ...opts,
});
export const token = (idOrPiece: number | string): TokenNode =>
  typeof idOrPiece === "number" ? { type: "token", id: idOrPiece } : { type: "token", piece: idOrPiece };
export const perm = (items: Array<{ node: GrammarNode; required: boolean }>, separator?: GrammarNode): PermNode => ({
  type: "perm",
  items,
  ...(separator ? { separator } : {}),
});
export const ref = (name: string): RefNode => ({ type: "ref", name });
export const jsonSchema = (
  schema: unknown,
  options?: JsonSchemaOptions,
  path?: string,
  depth?: number,
  document?: { schema: unknown; path: string },
): JsonSchemaNode => ({
  type: "jsonSchema",
  schema,
  ...(options ? { options } : {}),
  ...(path === undefined ? {} : { path }),
  ...(depth ? { depth } : {}),
  ...(document ? { document: document.schema, documentPath: document.path } : {}),
});

/** "a" → [a,a]; "a-z" → [a,z] (by code point). */
function toRange(s: string): [number, number] {
  const cps = Array.from(s);
  if (cps.length === 1) {
    const c = cps[0]!.codePointAt(0)!;
    return [c, c];
  }
  if (cps.length === 3 && cps[1] === "-") return [cps[0]!.codePointAt(0)!, cps[2]!.codePointAt(0)!];
  throw new TypeError(`charClass range must be "x" or "a-z", got ${JSON.stringify(s)}`);
}
