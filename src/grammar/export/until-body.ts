// An until node with a body, for the exports: grammar notations have no intersection, so the
// body's texts cut at the terminator are written as the regular expression that
// raw-text-product.ts builds (the language the native builder's product accepts).
import type { Grammar, GrammarNode } from "../ir.js";
import { rawTextRegex } from "../json-schema/raw-text-product.js";

const NOTHING: GrammarNode = { type: "alt", items: [] };

/** `grammar` with every until node that has a body replaced by that regular expression (new rules under a fresh prefix). */
export function expandUntilBodies(grammar: Grammar): Grammar {
  const rules: Record<string, GrammarNode> = { ...(grammar.rules ?? {}) };
  let ns = "until-body";
  for (let i = 1; Object.keys(rules).some((n) => n.startsWith(`${ns}.`)); i++) ns = `until-body-${i}`;
  let count = 0;
  let changed = false;
  const walk = (n: GrammarNode, path: string): GrammarNode => {
    switch (n?.type) {
      case "until": {
        if (!n.body) return n;
        changed = true;
        const raw = { close: n.terminator, trimNewline: n.trimNewline === true };
        return rawTextRegex(walk(n.body, `${path}.body`), rules, raw, `${ns}.${count++}`, path) ?? NOTHING;
      }
      case "seq":
      case "alt":
      case "intersect":
        return Array.isArray(n.items) ? { ...n, items: n.items.map((x, i) => walk(x, `${path}.items[${i}]`)) } : n;
      case "repeat":
        return { ...n, item: walk(n.item, `${path}.item`) };
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
