// Counting the work the stream parser does as the characters it reads from its buffer: every
// slice, search, comparison, character and JSON-extent scan of src/parser/text.ts's TextBuffer.
// A count that does not depend on the machine: linear-time checks compare it across input sizes
// (test/no-model/parser-linear.test.ts, the fuzzer's growth check). The classes are passed in, so tests
// count src/ and scripts count dist/.

/** Wraps TextBuffer's reads and JsonExtent.end to count; `restore()` undoes it. */
export function countReads({ TextBuffer, JsonExtent, OPEN }) {
  let reads = 0;
  const proto = TextBuffer.prototype;
  const original = {
    slice: proto.slice,
    indexOf: proto.indexOf,
    startsWith: proto.startsWith,
    charCodeAt: proto.charCodeAt,
    charAt: proto.charAt,
  };
  const extentEnd = JsonExtent.prototype.end;
  proto.slice = function (a, b, end = this.length) {
    reads += Math.max(0, Math.min(b ?? end, end) - a);
    return original.slice.call(this, a, b, end);
  };
  proto.indexOf = function (s, from, end = this.length) {
    const i = original.indexOf.call(this, s, from, end);
    reads += Math.max(0, (i >= 0 ? i + s.length : end) - from);
    return i;
  };
  proto.startsWith = function (s, i, end) {
    reads += s.length;
    return original.startsWith.call(this, s, i, end);
  };
  proto.charCodeAt = function (i, end) {
    reads++;
    return original.charCodeAt.call(this, i, end);
  };
  proto.charAt = function (i, end) {
    reads++;
    return original.charAt.call(this, i, end);
  };
  // An extent reads its text piece by piece: counted as the characters it got past.
  const seen = new WeakMap();
  JsonExtent.prototype.end = function (text, start) {
    const e = extentEnd.call(this, text, start);
    const was = seen.get(this);
    const from = was && was.start === start ? was.upTo : start;
    const upTo = e === OPEN ? text.length : e;
    reads += Math.max(0, upTo - from);
    seen.set(this, { start, upTo: Math.max(from, upTo) });
    return e;
  };
  return {
    get reads() {
      return reads;
    },
    reset() {
      reads = 0;
    },
    restore() {
      Object.assign(proto, original);
      JsonExtent.prototype.end = extentEnd;
    },
  };
}
