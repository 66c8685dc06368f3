// The output as the stream parser reads it: addressed by absolute offset, appended to chunk by
// chunk, and dropped from the front once nothing needs it. Appending never copies what came
// before (a string grown by `+=` is copied whole the next time it is read, once per feed), so
// reading the newest characters costs the same at 1 KB as at 1 GB.

/** Read access to the output's text by absolute offset: what the scanners read. */
export interface Text {
  /** The offset just past the last character (the text's absolute end). */
  readonly length: number;
  /** The UTF-16 code unit at `i`; NaN past the end. */
  charCodeAt(i: number): number;
  /** The character (code unit) at `i`; "" past the end. */
  charAt(i: number): string;
  startsWith(s: string, i: number): boolean;
  /** The first offset ≥ `from` where `s` occurs whole, or -1. */
  indexOf(s: string, from: number): number;
  slice(a: number, b?: number): string;
  /** The stored piece holding offset `i` (< length), with its absolute start and the end visible here. */
  pieceAt(i: number): { s: string; start: number; end: number };
}

/**
 * Pieces of the text, each more than twice as long as the next: appending merges the last pieces
 * until that holds again, so there are O(log n) pieces and a character is copied O(log n) times.
 */
export class TextBuffer implements Text {
  #pieces: string[] = [];
  #starts: number[] = [];
  #end = 0;
  #base = 0; // nothing before this offset is kept
  #hint = 0; // the piece the last lookup found

  get length(): number {
    return this.#end;
  }

  append(chunk: string): void {
    if (chunk === "") return;
    const p = this.#pieces,
      st = this.#starts;
    p.push(chunk);
    st.push(this.#end);
    this.#end += chunk.length;
    while (p.length >= 2 && p[p.length - 2]!.length <= 2 * p[p.length - 1]!.length) {
      const last = p.pop()!;
      st.pop();
      p[p.length - 1] += last;
    }
    this.#hint = p.length - 1;
  }

  /** Nothing before `offset` will be read again: pieces wholly before it are released. */
  dropBefore(offset: number): void {
    if (offset <= this.#base) return;
    this.#base = Math.min(offset, this.#end);
    let k = 0;
    while (k < this.#pieces.length && this.#starts[k]! + this.#pieces[k]!.length <= this.#base) k++;
    if (k > 0) {
      this.#pieces.splice(0, k);
      this.#starts.splice(0, k);
      this.#hint = 0;
    }
  }

  /** This text as if it ended at `end` (a prefix of it). */
  prefix(end: number): Text {
    return new Prefix(this, Math.min(end, this.#end));
  }

  /** Index of the piece holding `i`, for base ≤ i < end. */
  #find(i: number): number {
    const st = this.#starts,
      p = this.#pieces;
    if (i < this.#base)
      throw new RangeError(`internal: offset ${i} of the output was already released (kept from ${this.#base})`);
    let h = this.#hint;
    if (h < p.length && st[h]! <= i && i < st[h]! + p[h]!.length) return h;
    let lo = 0,
      hi = p.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (st[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    this.#hint = h = lo;
    return h;
  }

  pieceAt(i: number, end = this.#end): { s: string; start: number; end: number } {
    const k = this.#find(i);
    const start = this.#starts[k]!,
      s = this.#pieces[k]!;
    return { s, start, end: Math.min(end, start + s.length) };
  }

  charCodeAt(i: number, end = this.#end): number {
    if (!(i >= 0 && i < end)) return NaN;
    const k = this.#find(i);
    return this.#pieces[k]!.charCodeAt(i - this.#starts[k]!);
  }

  charAt(i: number, end = this.#end): string {
    if (!(i >= 0 && i < end)) return "";
    const k = this.#find(i);
    return this.#pieces[k]![i - this.#starts[k]!]!;
  }

  slice(a: number, b?: number, end = this.#end): string {
    b = Math.min(b ?? end, end);
    a = Math.max(0, a);
    if (a >= b) return "";
    const k = this.#find(a);
    const s = this.#pieces[k]!,
      st = this.#starts[k]!;
    if (b <= st + s.length) return s.slice(a - st, b - st);
    const parts = [s.slice(a - st)];
    for (let j = k + 1; j < this.#pieces.length && this.#starts[j]! < b; j++)
      parts.push(this.#pieces[j]!.slice(0, b - this.#starts[j]!));
    return parts.join("");
  }

  startsWith(s: string, i: number, end = this.#end): boolean {
    if (i < 0 || i + s.length > end) return false;
    if (s.length === 0) return true;
    const k = this.#find(i);
    const p = this.#pieces[k]!,
      st = this.#starts[k]!;
    if (i + s.length <= st + p.length) return p.startsWith(s, i - st);
    return this.slice(i, i + s.length, end) === s;
  }

  indexOf(s: string, from: number, end = this.#end): number {
    from = Math.max(from, this.#base, 0);
    const m = s.length;
    if (from + m > end) return -1;
    if (m === 0) return from;
    const p = this.#pieces,
      st = this.#starts;
    for (let k = this.#find(from); k < p.length && st[k]! < end; k++) {
      const pieceEnd = Math.min(st[k]! + p[k]!.length, end);
      // A match inside this piece, then one across its end into the following pieces.
      const j = p[k]!.indexOf(s, from - st[k]!);
      if (j >= 0 && st[k]! + j + m <= pieceEnd) return st[k]! + j;
      if (pieceEnd >= end) return -1;
      if (m > 1) {
        const at = Math.max(from, pieceEnd - m + 1);
        const i = this.slice(at, pieceEnd + m - 1, end).indexOf(s);
        if (i >= 0) return at + i;
      }
      from = pieceEnd;
    }
    return -1;
  }
}

/** A prefix of a TextBuffer: the same reads, ending at `length`. */
class Prefix implements Text {
  constructor(
    private readonly buf: TextBuffer,
    readonly length: number,
  ) {}
  charCodeAt(i: number): number {
    return this.buf.charCodeAt(i, this.length);
  }
  charAt(i: number): string {
    return this.buf.charAt(i, this.length);
  }
  startsWith(s: string, i: number): boolean {
    return this.buf.startsWith(s, i, this.length);
  }
  indexOf(s: string, from: number): number {
    return this.buf.indexOf(s, from, this.length);
  }
  slice(a: number, b?: number): string {
    return this.buf.slice(a, b, this.length);
  }
  pieceAt(i: number): { s: string; start: number; end: number } {
    return this.buf.pieceAt(i, this.length);
  }
}

/** A whole string as a Text (offsets are the string's own). */
export function textOf(s: string): TextBuffer {
  const t = new TextBuffer();
  t.append(s);
  return t;
}
