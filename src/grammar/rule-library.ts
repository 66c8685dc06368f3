// The grammar IR's JSON as the native compile reads it, with the JSON-schema lowering's kept rules
// (a JSON string's characters, numbers, integer ranges, formats: the same body under the same name
// in every grammar of the process, value-rules.ts) named instead of written out. The native side
// keeps each such rule per vocabulary once a grammar has brought it (native/core/rule_library.hpp),
// so a grammar carries only its own rules: 59 of the 152 KB of Claude Code 2.1.328's tool grammar in
// hermes are kept rules.
import type { Vocabulary } from "../vocab/vocabulary.js";
import type { Grammar, GrammarNode } from "./ir.js";
import { isKeptRule } from "./json-schema/value-rules.js";

/** The error code of a compile whose IR named a rule the vocabulary's library did not hold. */
export const RULE_LIBRARY_MISS = "TOOLMASK_RULE_LIBRARY_MISS";

/**
 * Per vocabulary (its native object): the kept rule bodies its library was given by compiles that
 * succeeded, while the library's generation (how many times it was emptied) stays the same.
 */
const given = new WeakMap<object, { generation: number; bodies: WeakSet<object> }>();

/** The bodies `vocabulary`'s library holds as far as this process gave them, and its generation now. */
function known(vocabulary: Vocabulary): { generation: number; bodies: WeakSet<object> } {
  const generation = vocabulary.native.ruleLibrary.generation;
  let k = given.get(vocabulary.native);
  if (!k || k.generation !== generation) given.set(vocabulary.native, (k = { generation, bodies: new WeakSet() }));
  return k;
}

export interface LibraryForm {
  /** The IR's JSON with every kept rule named, none written out: the same text whatever the library holds. */
  readonly named: string;
  /** The JSON to compile: `named` and the bodies of the kept rules the library was not given yet (all of them: `all`). */
  irJson(all?: boolean): string;
  /** Records that the library now holds every kept rule of this grammar (after a compile of irJson() succeeded). */
  given(): void;
}

/**
 * `grammar` (lowered and resolved for `vocabulary`) in its library form. Only a grammar's top-level
 * fields the native compile reads are kept; "library" and "libraryAdd" are this module's.
 */
export function libraryForm(grammar: Grammar, vocabulary: Vocabulary): LibraryForm {
  const own: Record<string, GrammarNode> = {};
  const kept: Array<[string, GrammarNode]> = [];
  if (grammar.rules)
    for (const [name, body] of Object.entries(grammar.rules))
      if (isKeptRule(body)) kept.push([name, body]);
      else own[name] = body;
  const { library: _l, libraryAdd: _a, ...rest } = grammar as Grammar & { library?: unknown; libraryAdd?: unknown };
  const named = JSON.stringify({ ...rest, rules: own, library: kept.map(([name]) => name) });
  return {
    named,
    irJson(all = false) {
      if (kept.length === 0) return named;
      const held = all ? undefined : known(vocabulary).bodies;
      const add: Record<string, GrammarNode> = {};
      let any = false;
      for (const [name, body] of kept)
        if (!held?.has(body)) {
          add[name] = body;
          any = true;
        }
      return any ? `${named.slice(0, -1)},"libraryAdd":${JSON.stringify(add)}}` : named;
    },
    given() {
      if (kept.length === 0) return;
      const held = known(vocabulary).bodies;
      for (const [, body] of kept) held.add(body);
    },
  };
}

/** Forgets what `vocabulary`'s library was given (after a compile found a rule missing there). */
export function forgetLibrary(vocabulary: Vocabulary): void {
  given.delete(vocabulary.native);
}

/** Whether `e` is the native compile's error for a library rule the library did not hold. */
export function isLibraryMiss(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === RULE_LIBRARY_MISS;
}
