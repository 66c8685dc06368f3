// An until node with a body, for the exports: grammar notations have no intersection, so the
// body's texts cut at the terminator are written as the regular expression that
// raw-text-product.ts builds (the language the native builder's product accepts).
import type { Grammar, GrammarNode } from "../ir.js";
import { rawTextRegex } from "../json-schema/raw-text-product.js";
import { rewriteGrammar } from "./rewrite.js";

const NOTHING: GrammarNode = { type: "alt", items: [] };

/** `grammar` with every until node that has a body replaced by that regular expression (new rules under a fresh prefix). */
export function expandUntilBodies(grammar: Grammar): Grammar {
  return rewriteGrammar(grammar, "until-body", (n, path, r) => {
    if (n.type !== "until" || !n.body) return undefined;
    const body = r.walk(n.body, `${path}.body`);
    const raw = { close: n.terminator, trimNewline: n.trimNewline === true };
    return rawTextRegex(body, r.rules, raw, r.fresh(), path) ?? NOTHING;
  });
}
