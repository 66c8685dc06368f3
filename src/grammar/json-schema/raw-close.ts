// The automaton raw text is checked against: the value close's KMP automaton (its first character
// occurs once in it, so a partial match restarts only at that character), with, under
// trimNewline, whether the string starts and ends with a newline. raw-text.ts walks a string
// grammar over it (which states each part can lead to); raw-text-product.ts builds the product.
import { intersect, subtractPoints, type Ranges } from "../code-ranges.js";

export interface RawClose {
  close: string;
  trimNewline: boolean;
}

export const NL = 0x0a;

/** Automaton states: `q` (the close's characters matched; -1: none, after a newline) and `first` (0: nothing read, 1: a newline first, 2: another character first). */
export type State = number;

export class CloseAutomaton {
  protected readonly c: number[];
  protected readonly k: number;

  constructor(protected readonly raw: RawClose) {
    this.c = Array.from(raw.close, (ch) => ch.codePointAt(0)!);
    this.k = this.c.length;
    // Unique first character and no newline: a match can only begin at the first character, and
    // padding newlines never take part in one.
    if (this.k < 2 || this.c.indexOf(this.c[0]!, 1) >= 0 || this.c.includes(NL))
      throw new Error(
        `raw text close ${JSON.stringify(raw.close)}: its first character must not recur, and it must hold no newline`,
      );
  }

  state(q: number, first: number): State {
    return first * (this.k + 1) + (q + 1);
  }
  q(s: State) {
    return (s % (this.k + 1)) - 1;
  }
  first(s: State) {
    return Math.floor(s / (this.k + 1));
  }

  /** The state reading the code point `cp` leads to (`step` for one character); undefined where it completes the close. */
  stepChar(s: State, cp: number): State | undefined {
    const q = this.q(s),
      f = this.first(s),
      trim = this.raw.trimNewline;
    const nl = trim && cp === NL;
    const nq = cp === (q >= 1 ? this.c[q] : this.c[0]) ? (q >= 1 ? q + 1 : 1) : cp === this.c[0] ? 1 : nl ? -1 : 0;
    if (nq >= this.k) return undefined;
    return this.state(nq, !trim ? 0 : f !== 0 ? f : nl ? 1 : 2);
  }

  /** The states reading one character of `r` leads to, with the characters leading there; a close completed leads nowhere. */
  step(s: State, r: Ranges): Array<[Ranges, State]> {
    const q = this.q(s),
      f = this.first(s),
      trim = this.raw.trimNewline;
    const next = q >= 1 ? this.c[q]! : this.c[0]!;
    const out: Array<[Ranges, State]> = [];
    const put = (part: Ranges, nq: number, nl: boolean) => {
      if (!part.length || nq >= this.k) return;
      const nf = !trim ? 0 : f !== 0 ? f : nl ? 1 : 2;
      out.push([part, this.state(nq, nf)]);
    };
    const pt = (cp: number): Ranges => intersect(r, [[cp, cp]]);
    put(pt(next), q >= 1 ? q + 1 : 1, false);
    if (q >= 1) put(pt(this.c[0]!), 1, false);
    if (trim) put(pt(NL), -1, true);
    put(subtractPoints(r, trim ? [next, this.c[0]!, NL] : [next, this.c[0]!]), 0, false);
    return out;
  }
}
