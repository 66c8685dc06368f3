// The grammar of an answer whose calls may open it without the dialect's trigger
// (DialectSpec.openingCalls: Qwen2.5-Coder's bare and fenced JSON calls). At the answer's start and
// after each such call stands a region (src/dialects/opening.ts): JSON whitespace, after a call a
// separator, then a call's head. The text either completes a head (a call of an allowed tool, or
// the dialect's own trigger), or leaves every head at one character: `departure` below, the same
// character the parser departs at (src/parser/opening-heads.ts). From there on it is text, which
// is how fenced or bare JSON that is no call stays writable under toolChoice auto.
import {
  alt,
  charClass,
  declaredCall,
  literal,
  marker,
  optional,
  repeat,
  seq,
  spelled,
  star,
} from "../grammar/builders.js";
import type { GrammarNode } from "../grammar/ir.js";
import { departure, departureAcceptsSomething } from "../grammar/departure.js";
import { JSON_WS_MAX } from "../grammar/json-schema/syntax.js";
import { glue, jsonCallTail } from "./call-grammar.js";
import { jsonWs } from "./grammar-forms.js";
import { type HeadPart, leadParts, openingRegion, wrapperHead } from "./opening.js";
import type { ResolvedRequest } from "./options.js";
import type { JsonCallFormat } from "./spec.js";

const WS = [" ", "\n", "\t", "\r"];
const wsChar = charClass(WS);
const firstCodePoint = (s: string): string => String.fromCodePoint(s.codePointAt(0)!);

/** The alternatives that exist; undefined when none does. */
function alts(...items: Array<GrammarNode | undefined>): GrammarNode | undefined {
  const some = items.filter((x): x is GrammarNode => x !== undefined);
  return some.length === 0 ? undefined : some.length === 1 ? some[0] : alt(...some);
}

/** The characters `parts` may begin with (an optional part's and whitespace's, and what follows them). */
function firstOf(parts: HeadPart[]): string[] {
  const out = new Set<string>();
  for (const p of parts) {
    if (p.kind === "text") return [...out.add(firstCodePoint(p.text))];
    if (p.kind === "words") {
      for (const w of p.words) out.add(firstCodePoint(w));
      return [...out];
    }
    if (p.kind === "heads") {
      for (const h of p.heads) for (const c of firstOf(h.parts)) out.add(c);
      return [...out];
    }
    if (p.kind === "ws") for (const c of WS) out.add(c);
    else for (const c of firstOf(p.parts)) out.add(c);
  }
  return [...out];
}

/** Names a grammar node as a rule of the grammar being built and returns its reference. */
export type RuleMaker = (name: string, node: GrammarNode) => GrammarNode;

/**
 * The strings that begin as a region's parts may and leave them at their last character: a proper
 * prefix of a head, then a character no head has there. One character per lexeme, as `partsPath`
 * spells the heads. Each departure from a whole part on is a rule of its own (the same one where
 * the same parts follow, as after an optional part), so no expression nests deeper than a part or
 * a name's stretch between rules.
 */
export class Departures {
  readonly #rule: RuleMaker;
  readonly #named = new Map<string, GrammarNode | undefined>();
  #rules = 0;

  constructor(rule: RuleMaker) {
    this.#rule = rule;
  }

  /**
   * Departures from `parts`, whose first character is none of `excluded` (they continue what comes
   * before: whitespace after whitespace). Undefined where nothing can depart (the parts are whole).
   */
  from(parts: HeadPart[], excluded: readonly string[] = []): GrammarNode | undefined {
    const key = JSON.stringify([parts, excluded]);
    if (!this.#named.has(key)) {
      const node = this.#depart(parts, excluded);
      this.#named.set(key, node && this.#rule(`leave-head-${this.#rules++}`, node));
    }
    return this.#named.get(key);
  }

  #depart(parts: HeadPart[], excluded: readonly string[]): GrammarNode | undefined {
    const [p, ...rest] = parts;
    if (p === undefined) return undefined;
    if (p.kind === "ws") {
      // Whitespace before it is never excluded by anything but whitespace, so a run of k (0..N)
      // characters then one that neither goes on with whitespace nor begins the rest departs, and
      // so does one whitespace character more than a run may have.
      if (excluded.some((c) => !WS.includes(c))) throw new Error("a whitespace run may follow only whitespace");
      return alts(seq(repeat(wsChar, 0, JSON_WS_MAX), needed(this.from(rest, WS))), runTooLong());
    }
    const leave = charClass([...new Set([...firstOf(parts), ...excluded])], true);
    return alts(leave, this.#onward(parts));
  }

  /** The departures whose first character goes on with `parts` (the departing character comes later). */
  #onward(parts: HeadPart[]): GrammarNode | undefined {
    const [p, ...rest] = parts;
    if (p === undefined) return undefined;
    switch (p.kind) {
      case "text": {
        // Within a fixed text the departures nest; a rule begins where the next part does.
        const c = firstCodePoint(p.text);
        const more = p.text.slice(c.length);
        const d = more ? this.#depart([{ kind: "text", text: more }, ...rest], []) : this.from(rest);
        return d && seq(literal(c), d);
      }
      case "ws":
        return alts(seq(repeat(wsChar, 1, JSON_WS_MAX), needed(this.from(rest, WS))), runTooLong(), this.#onward(rest));
      case "optional":
        return alts(this.#onward([...p.parts, ...rest]), this.#onward(rest));
      case "heads":
        return alts(...p.heads.map((h) => this.#onward([...h.parts, ...rest])));
      case "words": {
        // A character some word goes on with, then the names' departure (native: ir.ts DepartureNode).
        if (rest.length) throw new Error("words end a head");
        const d = departure(p.words, [], true);
        return departureAcceptsSomething(d) ? d : undefined;
      }
    }
  }
}

const runTooLong = (): GrammarNode => repeat(wsChar, JSON_WS_MAX + 1, JSON_WS_MAX + 1);

function needed(node: GrammarNode | undefined): GrammarNode {
  if (node === undefined) throw new Error("a head cannot end with whitespace");
  return node;
}

/** The text `parts` describe, written one character per lexeme (the departures spell the same characters). */
export function partsPath(parts: HeadPart[]): GrammarNode {
  return seq(
    ...parts.map((p): GrammarNode => {
      switch (p.kind) {
        case "text":
          return spelled(p.text);
        case "optional":
          return optional(partsPath(p.parts));
        case "ws":
          return jsonWs;
        case "words":
          return alt(...p.words.map(spelled));
        case "heads":
          return alt(...p.heads.map((h) => partsPath(h.parts)));
      }
    }),
  );
}

/**
 * An opening call of an allowed tool in any of the dialect's wrappers, its head as `partsPath`
 * writes it. From the name on the call is the same in every wrapper: one rule holds it.
 */
export function openingCall(o: ResolvedRequest, rule: RuleMaker): GrammarNode {
  const f = o.spec.call as JsonCallFormat;
  const fromName = rule(
    "opening-call-object",
    alt(...o.tools.map((t) => seq(spelled(`${t.name}"`), ...jsonCallTail(f, t, o.maxValueLength)))),
  );
  const forms = o.spec.openingCalls!.wrappers.map((w) =>
    seq(
      partsPath(wrapperHead(f, w, o.tools).slice(0, -1)),
      fromName,
      ...(w.close.length ? [jsonWs, glue(w.close)] : []),
    ),
  );
  return declaredCall(alt(...forms), true); // it opens the answer: entered without a byte
}

/** What the answer goes on with: the dialect's own grammar for its other calls and text. */
export interface OpeningRest {
  /** The opening call (a rule's reference). */
  call: GrammarNode;
  /** After text departed at the answer's start (toolChoice auto). */
  start: GrammarNode;
  /** After the calls: text, and with parallel calls the dialect's own calls among it. */
  after: GrammarNode;
  /** The dialect's own call after its trigger, and the call of a name no tool has (text). */
  own?: { trigger: string; call: GrammarNode; refused?: GrammarNode };
  /** Adds a rule to the grammar being built. */
  rule: RuleMaker;
}

/**
 * The answer: opening calls one after another (one where parallel calls are off), then `rest.after`;
 * or, under toolChoice auto, text departing from every head (nothing at all, whitespace) then
 * `rest.start`. A call the dialect opens with its trigger stands where an opening call may.
 */
export function openingAnswer(o: ResolvedRequest, rest: OpeningRest): GrammarNode {
  const auto = !o.callRequired;
  const start = openingRegion(o.spec, o.tools, false);
  const after = openingRegion(o.spec, o.tools, true);
  const lead = (region: HeadPart[]) => partsPath(leadParts(region));
  const departures = new Departures(rest.rule);
  const departure = (region: HeadPart[]) => departures.from(region);
  const own = (onRefused?: GrammarNode): GrammarNode | undefined => {
    if (!rest.own) return undefined;
    const refused = onRefused && rest.own.refused ? seq(rest.own.refused, onRefused) : undefined;
    return seq(marker(rest.own.trigger), alts(seq(rest.own.call, rest.after), refused)!);
  };
  const more = o.parallelToolCalls ? star(seq(lead(after), rest.call)) : seq();
  const ownAfter = o.parallelToolCalls ? own(rest.after) : undefined;
  // With parallel calls off the answer ends at its one call: nothing after it.
  const end = o.parallelToolCalls
    ? alts(jsonWs, seq(departure(after)!, rest.after), ownAfter && seq(lead(after), ownAfter))!
    : seq();
  const ownFirst = own(auto ? rest.start : undefined);
  const calls = alts(seq(lead(start), rest.call, more, end), ownFirst && seq(lead(start), ownFirst))!;
  return auto ? alt(jsonWs, seq(departure(start)!, rest.start), calls) : calls;
}
