// Stop strings over streamed text: passes text through, holding back only a tail that could still
// become a stop string, and cuts the output where the first one starts. A scanner made disarmed
// passes everything through until arm(): stop strings are looked for in the text fed after that
// (output-text.ts arms it after the first call of an answer whose tool choice requires one).

export class StopScanner {
  readonly #stops: string[];
  readonly #hold: number;
  #pending = "";
  #stopped = false;
  #matched: string | undefined;
  #armed: boolean;

  constructor(stop: string | string[] | undefined, armed = true) {
    const list = stop === undefined ? [] : Array.isArray(stop) ? stop : [stop];
    if (list.some((s) => typeof s !== "string" || s.length === 0))
      throw new TypeError("stop must be a non-empty string or an array of them");
    this.#stops = list;
    this.#hold = Math.max(0, ...list.map((s) => s.length - 1));
    this.#armed = armed;
  }

  /** From the next feed on, stop strings are looked for (in the text fed from then on). */
  arm(): void {
    this.#armed = true;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** The stop string that cut the output (the first listed of those starting there); undefined until one does. */
  get matched(): string | undefined {
    return this.#matched;
  }

  /** The text that is safe to emit after this chunk ("" once stopped). */
  feed(chunk: string): string {
    if (this.#stopped) return "";
    if (this.#stops.length === 0 || !this.#armed) return chunk;
    const text = this.#pending + chunk;
    let cut = -1;
    for (const s of this.#stops) {
      const at = text.indexOf(s);
      if (at >= 0 && (cut < 0 || at < cut)) {
        cut = at;
        this.#matched = s;
      }
    }
    if (cut >= 0) {
      this.#stopped = true;
      this.#pending = "";
      return text.slice(0, cut);
    }
    const keep = Math.min(this.#hold, text.length);
    this.#pending = text.slice(text.length - keep);
    return text.slice(0, text.length - keep);
  }

  /** What was held back, when the output ends without a stop string. */
  flush(): string {
    const rest = this.#stopped ? "" : this.#pending;
    this.#pending = "";
    return rest;
  }
}
