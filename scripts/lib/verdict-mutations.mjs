// Mutations of an answer that ask the parser for a verdict the grammar shares: a closing delimiter
// dropped, a key given twice, several calls where one is allowed. Each returns every variant of
// its class for `text` (the fuzz suite, scripts/lib/parser-fuzz.mjs, picks one; the verdict tests
// try them all). Plain ESM: shared by vitest tests and node scripts.
import { glueText } from "./dialect-writer.mjs";

const CLOSERS = new Set([")", "]", "}", '"', "'"]);

/**
 * Every closing delimiter of `text`, as a place to drop it ({ at, length, what }): every bracket,
 * paren, brace and quote (an opening quote is a closing one for a scanner that lost count), and
 * every occurrence of each of the dialect's markers (`markers`: its close tags and markers among them).
 */
export function closingPlaces(text, markers) {
  const out = [];
  for (let i = 0; i < text.length; i++)
    if (CLOSERS.has(text[i])) out.push({ at: i, length: 1, what: `${text[i]} at ${i}` });
  for (const m of markers) {
    for (let i = text.indexOf(m); i >= 0; i = text.indexOf(m, i + 1))
      out.push({ at: i, length: m.length, what: `${m} at ${i}` });
  }
  return out;
}

/** `text` without the delimiter at `place`. */
export const dropAt = (text, { at, length }) => text.slice(0, at) + text.slice(at + length);

/** The text with one closing delimiter removed, for each in turn (closingPlaces). */
export function closingDrops(text, markers) {
  return closingPlaces(text, markers).map((p) => ({ what: p.what, text: dropAt(text, p) }));
}

/** End of the JSON or Python value starting at `i` (strings, balanced brackets, or a bare word); -1 when it does not end. */
function valueEnd(s, i) {
  const c = s[i];
  if (c === '"' || c === "'") {
    for (let j = i + 1; j < s.length; j++) {
      if (s[j] === "\\") j++;
      else if (s[j] === c) return j + 1;
    }
    return -1;
  }
  if (c === "[" || c === "{") {
    let depth = 0,
      q = "";
    for (let j = i; j < s.length; j++) {
      const d = s[j];
      if (q) {
        if (d === "\\") j++;
        else if (d === q) q = "";
      } else if (d === '"' || d === "'") q = d;
      else if (d === "[" || d === "{") depth++;
      else if (d === "]" || d === "}") {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  const m = /^[^,\]})\s<]+/.exec(s.slice(i, i + 400));
  return m ? i + m[0].length : -1;
}

/**
 * Every member of `text` as a place to write it again right after itself ({ at, insert, what }):
 * every `"key": value` (and Python's `'key': value`) at any depth (an envelope's keys, a call
 * object's name, arguments and id, argument keys at every nesting depth), every `key=value`
 * keyword argument of a Python call, every parameter of an XML call. `other`: the value the copy
 * carries (undefined: the same value again).
 */
export function duplicatePlaces(spec, text, other) {
  const out = [];
  const member = /(["'])((?:(?!\1)[^\\\n]|\\.){0,40})\1[ \t\n\r]*:[ \t\n\r]*/g;
  for (let m = member.exec(text); m; m = member.exec(text)) {
    const v = m.index + m[0].length;
    const e = valueEnd(text, v);
    if (e < 0) continue;
    const key = text.slice(m.index, v);
    out.push({ at: e, insert: `, ${key}${other ?? text.slice(v, e)}`, what: `${key}… at ${m.index}` });
  }
  const f = spec.call;
  if (f.kind === "python") {
    const kw = /([(,][ \t\n\r]*)([A-Za-z_][A-Za-z0-9_]*)=/g;
    for (let m = kw.exec(text); m; m = kw.exec(text)) {
      const v = m.index + m[0].length;
      const e = valueEnd(text, v);
      if (e < 0) continue;
      out.push({ at: e, insert: `, ${m[2]}=${other ?? text.slice(v, e)}`, what: `${m[2]}= at ${m.index}` });
    }
  }
  if (f.kind === "xml") {
    const open = glueText(f.paramOpen.filter((p) => typeof p === "string"));
    for (let i = text.indexOf(open); i >= 0; i = text.indexOf(open, i + 1)) {
      const e = text.indexOf(f.valueClose, i);
      if (e < 0) break;
      const block = text.slice(i, e + f.valueClose.length);
      const named = block.slice(0, block.indexOf(f.paramNameClose, open.length) + f.paramNameClose.length);
      const copy = other === undefined ? block : named + glueText(f.valueOpen ?? []) + other + f.valueClose;
      out.push({ at: e + f.valueClose.length, insert: copy, what: `parameter at ${i}` });
    }
  }
  return out;
}

/** `text` with the copy at `place` inserted. */
export const insertAt = (text, { at, insert }) => text.slice(0, at) + insert + text.slice(at);

/** The text with one member written twice, for each in turn (duplicatePlaces). */
export function duplicateKeys(spec, text, other) {
  return duplicatePlaces(spec, text, other).map((p) => ({ what: p.what, text: insertAt(text, p) }));
}

/**
 * Several calls where one is allowed, each variant { what, text, settles }: the calls written as
 * the dialect writes parallel calls (harmony: the turn's further call messages after the first's
 * `<|call|>`), each as an answer of its own back to back (a section each; generic: an answer object
 * each; harmony: call messages with no message start between), harmony's calls after a final
 * message, and for an envelope the calls under its one-call key. The options to read them with
 * turn parallel calls off. `settles`: how many entries (calls, incomplete or dropped) the parser
 * owes when every call names an allowed tool; fewer than the calls only where the text holds them
 * in one entry (the envelope's one-call key) or the dialect's grammar lets text follow its one
 * call (llama3: the rest is content for both).
 */
export function severalCalls(spec, calls, writeOutput) {
  const f = spec.call;
  const n = calls.length;
  const own = calls.map((c) => writeOutput(spec, [c], {})).join("");
  if (f.kind === "harmony") {
    const start = glueText(f.messageStart);
    const final = `${f.channel}${f.channels.final}${f.message}Done.${f.finalEnd}`;
    return [
      { what: "call messages, each after a message start", text: calls.join(start), settles: n },
      { what: "call messages back to back", text: own, settles: n },
      { what: "call messages after the final message", text: `${final}${start}${calls.join(start)}`, settles: n },
    ];
  }
  // A dialect whose answer is one call, then any text, writes the first call only as its answer;
  // where calls open the answer one after another (openingCalls) each is read.
  const one = spec.callOpensAnswer && f.kind !== "envelope" && !spec.openingCalls ? 1 : n;
  const out = [
    { what: "the dialect's parallel calls", text: writeOutput(spec, calls, {}), settles: one },
    { what: "an answer each, back to back", text: own, settles: one },
  ];
  if (f.kind === "envelope") {
    const key = JSON.stringify(f.callKey);
    out.push({ what: `the calls in an array under ${key}`, text: `{${key}: [${calls.join(", ")}]}`, settles: 1 });
    out.push({
      what: `the calls one after another under ${key}`,
      text: `{${key}: ${calls.join(", ")}}`,
      settles: Math.min(n, 2),
    });
  }
  return out;
}
