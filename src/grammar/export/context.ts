// What the parts of the lowering (automata.ts, perm.ts) ask of the lowering (lower.ts).
import type { Ranges } from "../code-ranges.js";
import type { GrammarNode } from "../ir.js";
import type { LowerOptions } from "./options.js";
import type { Lowered, RuleExpr } from "./rule-ast.js";

export interface Lowering {
  readonly o: LowerOptions;
  /** Results by a key of the node's content (until and text automata, unrolled refs). */
  readonly memo: Map<string, Lowered>;
  /** A new rule name from `hint`, unique in this grammar. */
  fresh(hint: string): string;
  addRule(name: string, body: RuleExpr): void;
  /** `body` itself when it is a rule reference or a string, else a new rule for it. */
  named(hint: string, body: RuleExpr): RuleExpr;
  expr(n: GrammarNode, path: string): Lowered;
  /** One code point as text (the literal lowering: NUL for XGrammar, whole tokens for gbnf). */
  char(c: number, path: string): RuleExpr;
  /** A set of code points as one expression. */
  set(ranges: Ranges): Lowered;
  /** The token whose whole text is `T`, where the target offers whole tokens. */
  wholeToken(T: number[]): number | undefined;
}
