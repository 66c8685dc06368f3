// Whether the text at an offset is (so far) a JSON object, read incrementally: the first
// character that no JSON text could have there is found as soon as it arrives, and a scan
// resumes where the previous one stopped. A call object that names no tool in its head is read
// this way, so text that is not JSON is refused at its first wrong character, not at the end of
// its braces (which may be the end of the output): a flood of openers stays linear.
import { isJsonWs } from "./json-ws.js";
import type { Text } from "./text.js";

/** error: no JSON object text has the character at `at` there. */
export type PrefixVerdict = { status: "open" } | { status: "error"; at: number } | { status: "done"; end: number };

// What may come next.
const enum Want {
  Value, // a value
  ValueOrClose, // after "[": a value or "]"
  KeyOrClose, // after "{": a key or "}"
  Key, // after "," in an object
  Colon,
  CommaOrClose, // after a value inside a container
  String, // inside a string (a key or a value)
  Number,
  Literal,
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

// Number states, as JSON's grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
const enum Num {
  Sign,
  Zero,
  Int,
  Dot,
  Frac,
  E,
  ESign,
  Exp,
}
const numberMayEnd = (n: Num) => n === Num.Zero || n === Num.Int || n === Num.Frac || n === Num.Exp;

export class JsonPrefix {
  #start = -1;
  #k = 0;
  #want = Want.Value;
  #stack: boolean[] = []; // open containers, true for an object
  #isKey = false; // the string being read is a key
  #escape = 0; // in a string: 0, or 1 after "\", or 2..5 reading \u's hex digits
  #num = Num.Sign;
  #literal = ""; // the literal being read and how far
  #at = 0;
  #verdict: PrefixVerdict = { status: "open" };

  /** The object at `start`: still open, not JSON, or ended (exclusive end). */
  read(text: Text, start: number): PrefixVerdict {
    if (start !== this.#start) this.#reset(start);
    while (this.#verdict.status === "open" && this.#k < text.length) {
      const { s, start: at, end } = text.pieceAt(this.#k);
      for (let j = this.#k - at, stop = end - at; j < stop; j++) {
        if (!this.#step(s.charCodeAt(j))) {
          this.#verdict = { status: "error", at: at + j };
          break;
        }
        if (this.#stack.length === 0 && this.#want === Want.CommaOrClose) {
          this.#verdict = { status: "done", end: at + j + 1 };
          break;
        }
      }
      this.#k = end;
    }
    return this.#verdict;
  }

  #reset(start: number): void {
    this.#start = start;
    this.#k = start;
    this.#want = Want.Value;
    this.#stack = [];
    this.#escape = 0;
    this.#verdict = { status: "open" };
  }

  /** One character; false when no JSON object text has it here. */
  #step(c: number): boolean {
    switch (this.#want) {
      case Want.String:
        return this.#stringChar(c);
      case Want.Literal:
        if (c !== this.#literal.charCodeAt(this.#at)) return false;
        if (++this.#at === this.#literal.length) this.#want = Want.CommaOrClose;
        return true;
      case Want.Number: {
        const n = this.#numberChar(c);
        if (n !== undefined) {
          this.#num = n;
          return true;
        }
        if (!numberMayEnd(this.#num)) return false;
        this.#want = Want.CommaOrClose;
        return this.#step(c);
      }
      default:
        // Whitespace between tokens; the object itself starts at `start`, with its "{".
        if (isJsonWs(c)) return this.#stack.length > 0;
    }
    switch (this.#want) {
      case Want.Value:
      case Want.ValueOrClose:
        if (this.#want === Want.ValueOrClose && c === 0x5d) return this.#close(false);
        // The call object itself must be an object.
        if (this.#stack.length === 0 && c !== 0x7b) return false;
        return this.#value(c);
      case Want.KeyOrClose:
      case Want.Key:
        if (this.#want === Want.KeyOrClose && c === 0x7d) return this.#close(true);
        if (c !== 0x22) return false;
        this.#want = Want.String;
        this.#isKey = true;
        return true;
      case Want.Colon:
        if (c !== 0x3a) return false;
        this.#want = Want.Value;
        return true;
      case Want.CommaOrClose: {
        const inObject = this.#stack[this.#stack.length - 1];
        if (c === 0x2c) {
          this.#want = inObject ? Want.Key : Want.Value;
          return true;
        }
        return c === (inObject ? 0x7d : 0x5d) && this.#close(inObject!);
      }
      default:
        return false;
    }
  }

  #value(c: number): boolean {
    if (c === 0x7b) {
      this.#stack.push(true);
      this.#want = Want.KeyOrClose;
      return true;
    }
    if (c === 0x5b) {
      this.#stack.push(false);
      this.#want = Want.ValueOrClose;
      return true;
    }
    if (c === 0x22) {
      this.#want = Want.String;
      this.#isKey = false;
      return true;
    }
    const literal = c === 0x74 ? "true" : c === 0x66 ? "false" : c === 0x6e ? "null" : undefined;
    if (literal) {
      this.#literal = literal;
      this.#at = 1;
      this.#want = Want.Literal;
      return true;
    }
    if (c === 0x2d || isDigit(c)) {
      this.#num = c === 0x2d ? Num.Sign : c === 0x30 ? Num.Zero : Num.Int;
      this.#want = Want.Number;
      return true;
    }
    return false;
  }

  #close(object: boolean): boolean {
    if (this.#stack.pop() !== object) return false;
    this.#want = Want.CommaOrClose;
    return true;
  }

  #stringChar(c: number): boolean {
    if (this.#escape === 1) {
      if (c === 0x75) {
        this.#escape = 2;
        return true;
      }
      this.#escape = 0;
      return (
        c === 0x22 || c === 0x5c || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74
      );
    }
    if (this.#escape >= 2) {
      if (!isHex(c)) return false;
      this.#escape = this.#escape === 5 ? 0 : this.#escape + 1;
      return true;
    }
    if (c === 0x5c) {
      this.#escape = 1;
      return true;
    }
    if (c < 0x20) return false;
    if (c === 0x22) this.#want = this.#isKey ? Want.Colon : Want.CommaOrClose;
    return true;
  }

  /** The number's next state after `c`, or undefined when `c` does not continue it. */
  #numberChar(c: number): Num | undefined {
    const d = isDigit(c);
    switch (this.#num) {
      case Num.Sign:
        return c === 0x30 ? Num.Zero : d ? Num.Int : undefined;
      case Num.Zero:
        return c === 0x2e ? Num.Dot : c === 0x65 || c === 0x45 ? Num.E : undefined;
      case Num.Int:
        return d ? Num.Int : c === 0x2e ? Num.Dot : c === 0x65 || c === 0x45 ? Num.E : undefined;
      case Num.Dot:
        return d ? Num.Frac : undefined;
      case Num.Frac:
        return d ? Num.Frac : c === 0x65 || c === 0x45 ? Num.E : undefined;
      case Num.E:
        return d ? Num.Exp : c === 0x2b || c === 0x2d ? Num.ESign : undefined;
      case Num.ESign:
        return d ? Num.Exp : undefined;
      case Num.Exp:
        return d ? Num.Exp : undefined;
    }
  }
}
