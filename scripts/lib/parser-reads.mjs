// Counting the work the stream parser does as the characters it reads from its buffer: every
// slice, search, comparison and character of src/parser/text.ts's TextBuffer, and the scanners
// that read its pieces themselves (TextBuffer.pieceAt): JsonExtent, PythonExtent and JsonPrefix.
// A count that does not depend on the machine: linear-time checks compare it across input sizes
// (test/no-model/parser-linear.test.ts, the fuzzer's growth check). The classes are passed in, so tests
// count src/ and scripts count dist/.

/**
 * Wraps TextBuffer's reads and the scanners' steps (JsonExtent.end, PythonExtent.end,
 * JsonPrefix.read; the last two where passed) to count; `restore()` undoes it.
 */
export function countReads({ TextBuffer, JsonExtent, OPEN, PythonExtent, JsonPrefix }) {
  let reads = 0;
  const proto = TextBuffer.prototype;
  const original = {
    slice: proto.slice,
    indexOf: proto.indexOf,
    startsWith: proto.startsWith,
    charCodeAt: proto.charCodeAt,
    charAt: proto.charAt,
  };
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
  // A scanner reads its text piece by piece from `start`, resuming where it stopped: counted as
  // the characters it got past (to its end, or the text's end while open), once per scan from `start`.
  const scanners = [
    [JsonExtent, "end", (e, text) => (e === OPEN ? text.length : e)],
    [PythonExtent, "end", (e, text) => (e < 0 ? text.length : e)], // its OPEN is -1 too
    [JsonPrefix, "read", (v, text) => (v.status === "open" ? text.length : v.status === "done" ? v.end : v.at + 1)],
  ].filter(([cls]) => cls !== undefined);
  const wrapped = scanners.map(([cls, name, upToOf]) => {
    const method = cls.prototype[name];
    const seen = new WeakMap();
    cls.prototype[name] = function (text, start) {
      const r = method.call(this, text, start);
      const was = seen.get(this);
      const from = was && was.start === start ? was.upTo : start;
      const upTo = upToOf(r, text);
      reads += Math.max(0, upTo - from);
      seen.set(this, { start, upTo: Math.max(from, upTo) });
      return r;
    };
    return [cls, name, method];
  });
  return {
    get reads() {
      return reads;
    },
    reset() {
      reads = 0;
    },
    restore() {
      Object.assign(proto, original);
      for (const [cls, name, method] of wrapped) cls.prototype[name] = method;
    },
  };
}
