// Whether an intersection (pattern.ts's `and`: a string's patterns, formats and length at once)
// matches any string, decided before the lowering writes it. The native compiler builds the product
// itself (native/core/nfa_intersect.cpp); one that matches nothing would only show there, as a part
// of the grammar no text can finish, so the lowering drops it here, as it drops every schema that
// matches no value (a required property of it: InvalidSchemaError "matches no value").
//
// Each item is an automaton over the code points a string can spell (its quantifiers unrolled),
// except a run of any characters between two bounds (a length), which bounds the string's length.
// The automata are walked together, each as the set of states it stands in, one level per string
// length, until a string of an allowed length ends in all of them (some string matches), the levels
// repeat (no longer string reaches what a shorter one did not: none does), or a budget is spent
// (then the intersection counts as matching something, and the native product decides: a part no
// text can finish is never a looser grammar).
import { ENCODABLE, intersect, sameRanges, type Ranges } from "../code-ranges.js";
import { asRun, type Rx } from "./pattern.js";

/** Automaton states one item may unroll to. */
const ITEM_STATES = 50_000;
/** Deterministic states (one set of states per item) the walk may meet, and edges it may follow. */
const WALK_STATES = 20_000;
const WALK_EDGES = 2_000_000;

class Undecided extends Error {}

/** One item as an automaton over code points: Thompson's construction, quantifiers unrolled. */
class Auto {
  readonly edges: Array<Array<[Ranges, number]>> = [];
  readonly eps: number[][] = [];
  readonly start: number;
  readonly accept: number;
  private readonly closures = new Map<number, number[]>();
  /** Each set's encodable part, once per set however often a quantifier unrolls it (read only). */
  private readonly encodable = new Map<Rx, Ranges>();

  constructor(rx: Rx) {
    this.start = this.add();
    this.accept = this.build(rx, this.start);
  }

  private add(): number {
    if (this.edges.length >= ITEM_STATES) throw new Undecided();
    this.edges.push([]);
    this.eps.push([]);
    return this.edges.length - 1;
  }

  private build(rx: Rx, from: number): number {
    switch (rx.k) {
      case "set": {
        const to = this.add();
        let r = this.encodable.get(rx);
        if (r === undefined) this.encodable.set(rx, (r = intersect(rx.r, ENCODABLE)));
        if (r.length) this.edges[from]!.push([r, to]);
        return to;
      }
      case "seq":
        return rx.items.reduce((cur, item) => this.build(item, cur), from);
      case "alt": {
        const to = this.add();
        for (const item of rx.items) this.eps[this.build(item, from)]!.push(to);
        return to;
      }
      case "rep": {
        let cur = from;
        for (let i = 0; i < rx.min; i++) cur = this.build(rx.item, cur);
        const to = this.add();
        this.eps[cur]!.push(to);
        if (rx.max === null) {
          this.eps[this.build(rx.item, to)]!.push(to);
          return to;
        }
        for (let i = rx.min; i < rx.max; i++) {
          cur = this.build(rx.item, cur);
          this.eps[cur]!.push(to);
        }
        return to;
      }
      case "and":
        // an intersection inside an item: its first item's strings, which hold all of its own
        return this.build(rx.items[0]!, from);
    }
  }

  /** The states `states` stand for, eps moves taken (sorted). */
  closure(states: Iterable<number>): number[] {
    const all = new Set<number>();
    for (const s of states) for (const t of this.reach(s)) all.add(t);
    return [...all].sort((a, b) => a - b);
  }

  private reach(s: number): number[] {
    let c = this.closures.get(s);
    if (!c) {
      const seen = new Set([s]);
      const stack = [s];
      while (stack.length)
        for (const t of this.eps[stack.pop()!]!)
          if (!seen.has(t)) {
            seen.add(t);
            stack.push(t);
          }
      c = [...seen];
      this.closures.set(s, c);
    }
    return c;
  }
}

/** A set that holds every code point a string can spell. */
const isAny = (r: Ranges) => sameRanges(intersect(r, ENCODABLE), ENCODABLE);

/** A length bound, when `rx` is any characters between two bounds. */
function lengthOf(rx: Rx): { min: number; max: number | null } | undefined {
  const run = asRun(rx);
  return run && isAny(run.r) ? run : undefined;
}

/** Whether some string (that the grammar can spell: no lone surrogate) matches every item of `items`. */
export function matchesSomething(items: readonly Rx[]): boolean {
  let lo = 0;
  let hi: number | null = null;
  const rest: Rx[] = [];
  for (const x of items) {
    const l = lengthOf(x);
    if (!l) rest.push(x);
    else {
      lo = Math.max(lo, l.min);
      if (l.max !== null) hi = hi === null ? l.max : Math.min(hi, l.max);
    }
  }
  if (hi !== null && lo > hi) return false;
  if (rest.length === 1) {
    const one = runMatches(rest[0]!, lo, hi);
    if (one !== undefined) return one;
  }
  try {
    return (
      rest.length === 0 ||
      walk(
        rest.map((x) => new Auto(x)),
        lo,
        hi,
      )
    );
  } catch (e) {
    if (e instanceof Undecided) return true;
    throw e;
  }
}

/**
 * Whether `rx`, a run of one class (`[^\n]{0,300}`: what merged runs leave), matches a string of
 * lo..hi characters; undefined for any other expression. A run of n characters exists for every n
 * between its bounds once its class holds a code point a string can spell, so no automaton is needed
 * (one was built per repetition: 300 states for that example).
 */
function runMatches(rx: Rx, lo: number, hi: number | null): boolean | undefined {
  const run = asRun(rx);
  if (!run) return undefined;
  const least = Math.max(run.min, lo);
  const most = run.max === null ? hi : hi === null ? run.max : Math.min(run.max, hi);
  if (most !== null && least > most) return false;
  return least === 0 || intersect(run.r, ENCODABLE).length > 0;
}

/** Whether the automata together end a string of lo..hi characters (hi null: no bound). */
function walk(autos: Auto[], lo: number, hi: number | null): boolean {
  // a deterministic state: each automaton's set of states, interned
  const ids = new Map<string, number>();
  const states: number[][][] = [];
  let edges = 0;
  const intern = (sets: number[][]): number => {
    const key = sets.map((s) => s.join(",")).join("|");
    let id = ids.get(key);
    if (id === undefined) {
      if (states.length >= WALK_STATES) throw new Undecided();
      id = states.length;
      ids.set(key, id);
      states.push(sets);
    }
    return id;
  };
  const accepting = (d: number) => states[d]!.every((set, i) => set.includes(autos[i]!.accept));
  const next = new Map<number, number[]>();
  const successors = (d: number): number[] => {
    const known = next.get(d);
    if (known) return known;
    const sets = states[d]!;
    // the code points where some edge starts or ends: between two of them every edge reads alike
    const cuts = new Set<number>();
    for (let i = 0; i < autos.length; i++)
      for (const s of sets[i]!)
        for (const [r] of autos[i]!.edges[s]!)
          for (const [a, b] of r) {
            cuts.add(a);
            cuts.add(b + 1);
          }
    const points = [...cuts].sort((a, b) => a - b);
    const out = new Set<number>();
    for (const c of points) {
      const moved: number[][] = [];
      for (let i = 0; i < autos.length && moved.length === i; i++) {
        const to: number[] = [];
        for (const s of sets[i]!)
          for (const [r, t] of autos[i]!.edges[s]!) {
            edges++;
            if (r.some(([a, b]) => c >= a && c <= b)) to.push(t);
          }
        if (to.length) moved.push(autos[i]!.closure(to));
      }
      if (edges > WALK_EDGES) throw new Undecided();
      if (moved.length === autos.length) out.add(intern(moved));
    }
    const list = [...out];
    next.set(d, list);
    return list;
  };
  const start = intern(autos.map((a) => a.closure([a.start])));
  // First the states reachable at all, by the fewest characters: none that ends every automaton, no
  // string; one reached first at an allowed length, a string (the levels below only for the rest).
  const depth = new Map<number, number>([[start, 0]]);
  let anyEnd = false;
  for (let frontier = [start], n = 0; frontier.length > 0; n++) {
    const following: number[] = [];
    for (const d of frontier) {
      if (accepting(d)) {
        if (n >= lo && (hi === null || n <= hi)) return true;
        anyEnd = true;
      }
      for (const t of successors(d))
        if (!depth.has(t)) {
          depth.set(t, n + 1);
          following.push(t);
        }
    }
    frontier = following;
  }
  if (!anyEnd) return false;
  let level = [start];
  const seen = new Map<string, number>(); // a level's states -> the first length it was met at
  const ends: boolean[] = []; // whether a string of each length ends in every automaton
  for (let n = 0; hi === null || n <= hi; n++) {
    const end = level.some(accepting);
    if (end && n >= lo) return true;
    const key = [...level].sort((a, b) => a - b).join(",");
    const first = seen.get(key);
    if (first !== undefined) {
      // lengths from `first` on repeat with period n - first: an ending length a in [first, n)
      // stands for a + k·period
      const period = n - first;
      const from = Math.max(lo, n);
      for (let a = first; a < n; a++) {
        if (!ends[a]) continue;
        const k = a + Math.ceil((from - a) / period) * period;
        if (hi === null || k <= hi) return true;
      }
      return false;
    }
    seen.set(key, n);
    ends.push(end);
    const following = new Set<number>();
    for (const d of level) for (const t of successors(d)) following.add(t);
    if (following.size === 0) return false;
    level = [...following];
  }
  return false;
}
