// One pass of the exports over a grammar: every node `visit` replaces is replaced (its new rules
// under a prefix no rule of the grammar has yet), every other node is copied with its children
// rewritten, root and rules alike. The grammar itself comes back when nothing was replaced.
import type { Grammar, GrammarNode } from "../ir.js";

export interface Rewrite {
  /** The grammar's rules, to read and to add to. */
  rules: Record<string, GrammarNode>;
  /** A fresh rule-name prefix for one replacement: `<prefix>.<n>`. */
  fresh(): string;
  /** Rewrites `n` (found at `path`) the same way: for a replacement that holds nodes of its own. */
  walk(n: GrammarNode, path: string): GrammarNode;
}

/**
 * `grammar` with each node for which `visit` returns a node replaced by it (undefined: not
 * replaced, its children are visited). New rules are named under `prefix`, or `prefix-<i>` where
 * rules already start with it.
 */
export function rewriteGrammar(
  grammar: Grammar,
  prefix: string,
  visit: (n: GrammarNode, path: string, r: Rewrite) => GrammarNode | undefined,
): Grammar {
  const rules: Record<string, GrammarNode> = { ...(grammar.rules ?? {}) };
  let ns = prefix;
  for (let i = 1; Object.keys(rules).some((n) => n.startsWith(`${ns}.`)); i++) ns = `${prefix}-${i}`;
  let count = 0;
  let changed = false;
  const r: Rewrite = { rules, fresh: () => `${ns}.${count++}`, walk: (n, path) => walk(n, path) };
  const walk = (n: GrammarNode, path: string): GrammarNode => {
    const replaced = n ? visit(n, path, r) : undefined;
    if (replaced !== undefined) {
      changed = true;
      return replaced;
    }
    switch (n?.type) {
      case "seq":
      case "alt":
      case "intersect":
        return Array.isArray(n.items) ? { ...n, items: n.items.map((x, i) => walk(x, `${path}.items[${i}]`)) } : n;
      case "repeat":
        return { ...n, item: walk(n.item, `${path}.item`) };
      case "until":
        return n.body ? { ...n, body: walk(n.body, `${path}.body`) } : n;
      case "perm":
        return {
          ...n,
          items: n.items.map((it, i) => ({ ...it, node: walk(it.node, `${path}.items[${i}].node`) })),
          ...(n.separator ? { separator: walk(n.separator, `${path}.separator`) } : {}),
        };
      default:
        return n;
    }
  };
  const root = walk(grammar.root, "root");
  for (const name of Object.keys(grammar.rules ?? {})) rules[name] = walk(rules[name]!, `rules.${name}`);
  return changed ? { ...grammar, root, rules } : grammar;
}
