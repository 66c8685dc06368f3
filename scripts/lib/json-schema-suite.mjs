// The JSON Schema Test Suite (npm json-schema-test-suite, its draft4 folder) as texts a grammar
// sees. Plain ESM so the vitest suite (test/no-model/json-schema-suite.test.ts) and the peer benchmark
// (scripts/bench/bench-json-schema-suite.mjs) read the same cases.
//
// A grammar fixes a serialisation, so "valid" and "invalid" become statements about texts:
//   - a valid instance passes when its canonical text is accepted — the compact text
//     JSON.stringify writes (keys in the suite's order), with each number spelled as the suite
//     file spells it (the suite's 1.0 and 53-digit bignums are not what a double prints) — and
//     its spaced text (Python's json.dumps: ", " and ": "), or for grammars that allow any
//     whitespace its indented text;
//   - an invalid instance passes when every text of `spellings(doc)` is refused: the canonical
//     text, a spaced one (", " and ": "), other key orders, other number spellings, strings
//     written with \u escapes and "\/": the same value in the ways a model could write it.
// The suite files are read with `parseLossless`, which keeps every number's spelling.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** @typedef {null | boolean | string | { num: string } | Doc[] | { obj: Array<[string, Doc]> }} Doc */

/** The folder of the suite's draft-04 files (the package's only drafts are 3 and 4). */
export function suiteDir() {
  const pkg = createRequire(import.meta.url).resolve("json-schema-test-suite/package.json");
  return path.join(path.dirname(pkg), "tests", "draft4");
}

/** The suite's version, from its package.json. */
export function suiteVersion() {
  const pkg = createRequire(import.meta.url).resolve("json-schema-test-suite/package.json");
  return JSON.parse(readFileSync(pkg, "utf8")).version;
}

/**
 * Every group of the draft4 suite: `{ file, group, schema, tests: [{ description, valid, data, doc }] }`,
 * `file` relative to the draft folder ("optional/bignum.json"), `group` the group's description
 * (made unique in its file), `data` as JSON.parse reads it, `doc` with the numbers as written.
 */
export function loadSuite(dir = suiteDir()) {
  const files = [
    ...readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort(),
    ...readdirSync(path.join(dir, "optional"))
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => `optional/${f}`),
  ];
  const groups = [];
  const seen = new Map();
  for (const file of files) {
    const text = readFileSync(path.join(dir, file), "utf8");
    const plain = JSON.parse(text);
    const docs = parseLossless(text);
    plain.forEach((g, i) => {
      const gdoc = field(docs[i], "tests");
      // two groups of one file may share a description: the second is "… (2)"
      const key = `${file} / ${g.description}`;
      const n = (seen.get(key) ?? 0) + 1;
      seen.set(key, n);
      groups.push({
        file,
        group: n > 1 ? `${g.description} (${n})` : g.description,
        schema: g.schema,
        tests: g.tests.map((t, j) => ({
          description: t.description,
          valid: t.valid,
          data: t.data,
          doc: field(gdoc[j], "data"),
        })),
      });
    });
  }
  return groups;
}

const field = (doc, key) => doc.obj.find(([k]) => k === key)[1];

/** `file / group / test`: the name a deviation is listed by. */
export const testName = (g, t) => `${g.file.replace(/\.json$/, "")} / ${g.group} / ${t.description}`;
export const groupName = (g) => `${g.file.replace(/\.json$/, "")} / ${g.group}`;

/** Parses JSON text keeping numbers as written (`{ num }`) and key order (`{ obj }`). */
export function parseLossless(text) {
  let i = 0;
  const ws = () => {
    while (/[ \t\n\r]/.test(text[i] ?? "")) i++;
  };
  const fail = (what) => {
    throw new SyntaxError(`parseLossless: ${what} at ${i}`);
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      const obj = [];
      if (text[i] === "}") {
        i++;
        return { obj };
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail("expected a key");
        const k = str();
        ws();
        if (text[i++] !== ":") fail("expected ':'");
        obj.push([k, value()]);
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i++] === "}") return { obj };
        fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      ws();
      const arr = [];
      if (text[i] === "]") {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i++] === "]") return arr;
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    for (const [word, v] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ]) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (!m) fail("expected a value");
    i += m[0].length;
    return { num: m[0] };
  };
  const str = () => {
    const start = i++;
    while (text[i] !== '"') {
      if (text[i] === "\\") i++;
      i++;
      if (i >= text.length) fail("unterminated string");
    }
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const out = value();
  ws();
  if (i !== text.length) fail("trailing text");
  return out;
}

const isNum = (d) => d !== null && typeof d === "object" && !Array.isArray(d) && "num" in d;
const isObjDoc = (d) => d !== null && typeof d === "object" && !Array.isArray(d) && "obj" in d;

/**
 * The text of `doc` with separators `sep` (`{ comma, colon }`), strings through `str`, numbers
 * through `num`, and each object's entries through `order`.
 */
function write(doc, o) {
  if (doc === null || typeof doc === "boolean") return String(doc);
  if (typeof doc === "string") return o.str(doc);
  if (isNum(doc)) return o.num(doc.num);
  if (Array.isArray(doc)) return `[${doc.map((d) => write(d, o)).join(o.comma)}]`;
  return `{${o
    .order(doc.obj)
    .map(([k, v]) => `${o.str(k)}${o.colon}${write(v, o)}`)
    .join(o.comma)}}`;
}
const PLAIN = { comma: ",", colon: ":", str: (s) => JSON.stringify(s), num: (n) => n, order: (e) => e };

/** The compact text JSON.stringify writes, numbers as the suite spells them. */
export const canonical = (doc) => write(doc, PLAIN);

/** The text Python's json.dumps writes: ", " and ": " between items. */
export const spaced = (doc) => write(doc, { ...PLAIN, comma: ", ", colon: ": " });

/** Indented text (newlines, two spaces a level), for grammars that allow any whitespace. */
export function pretty(doc, depth = 0) {
  const pad = (n) => "\n" + "  ".repeat(n);
  if (Array.isArray(doc))
    return doc.length ? `[${doc.map((d) => pad(depth + 1) + pretty(d, depth + 1)).join(",")}${pad(depth)}]` : "[]";
  if (isObjDoc(doc)) {
    return doc.obj.length
      ? `{${doc.obj.map(([k, v]) => `${pad(depth + 1)}${JSON.stringify(k)}: ${pretty(v, depth + 1)}`).join(",")}${pad(depth)}}`
      : "{}";
  }
  return canonical(doc);
}

/** Other spellings of the same number: `1` → `1.0`, `1e0`; `1.5` → `15e-1`, `1.50`. */
function otherNumbers(raw) {
  const m = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(raw);
  const [, sign, int, frac = "", exp] = m;
  const out = [];
  if (exp === undefined) {
    const digits = `${int}${frac}`.replace(/^0+(?=[0-9])/, "");
    out.push(frac ? `${raw}0` : `${raw}.0`, frac ? `${sign}${digits}e-${frac.length}` : `${raw}e0`);
  } else {
    out.push(`${sign}${int}${frac ? `.${frac}` : ""}E${exp}`);
  }
  return out;
}

/** Every character as a \uXXXX escape (surrogate pairs for astral ones), "/" included. */
const escapedString = (s) =>
  `"${Array.from(s, (ch) => {
    const u = ch.codePointAt(0);
    const one = (x) => `\\u${x.toString(16).padStart(4, "0")}`;
    if (u < 0x10000) return one(u);
    const v = u - 0x10000;
    return one(0xd800 + (v >> 10)) + one(0xdc00 + (v & 0x3ff));
  }).join("")}"`;

/** Permutations of `xs` (at most `cap` of them, the identity first). */
function permutations(xs, cap) {
  const out = [];
  const go = (rest, acc) => {
    if (out.length >= cap) return;
    if (rest.length === 0) {
      out.push(acc);
      return;
    }
    rest.forEach((x, i) => go([...rest.slice(0, i), ...rest.slice(i + 1)], [...acc, x]));
  };
  go(xs, []);
  return out;
}

/** Docs of every object node's entries, with a path to replace it. */
function objectsOf(doc, at = [], out = []) {
  if (Array.isArray(doc)) doc.forEach((d, i) => objectsOf(d, [...at, i], out));
  else if (isObjDoc(doc)) {
    out.push(at);
    doc.obj.forEach(([, v], i) => objectsOf(v, [...at, i], out));
  }
  return out;
}
function replaceAt(doc, at, f) {
  if (at.length === 0) return f(doc);
  const [h, ...t] = at;
  if (Array.isArray(doc)) return doc.map((d, i) => (i === h ? replaceAt(d, t, f) : d));
  return { obj: doc.obj.map(([k, v], i) => [k, i === h ? replaceAt(v, t, f) : v]) };
}
function mapNumbers(doc, f) {
  if (isNum(doc)) return { num: f(doc.num) };
  if (Array.isArray(doc)) return doc.map((d) => mapNumbers(d, f));
  if (isObjDoc(doc)) return { obj: doc.obj.map(([k, v]) => [k, mapNumbers(v, f)]) };
  return doc;
}
function numbersOf(doc, out = []) {
  if (isNum(doc)) out.push(doc.num);
  else if (Array.isArray(doc)) doc.forEach((d) => numbersOf(d, out));
  else if (isObjDoc(doc)) doc.obj.forEach(([, v]) => numbersOf(v, out));
  return out;
}

/**
 * Texts of the value `doc` holds, the canonical one first, deduplicated: spaced separators,
 * each object's keys in every order (up to 24 orders each, the others kept), every object
 * reversed, each number in its other spellings (one at a time and all at once), strings and keys
 * as \u escapes. With `pretty: true` the indented text too (for "any"-whitespace grammars).
 */
export function spellings(doc, { pretty: withPretty = false } = {}) {
  const texts = [canonical(doc), spaced(doc)];
  for (const at of objectsOf(doc)) {
    for (const perm of permutations(
      getAt(doc, at).obj.map((_, i) => i),
      24,
    ).slice(1)) {
      texts.push(canonical(replaceAt(doc, at, (o) => ({ obj: perm.map((i) => o.obj[i]) }))));
    }
  }
  texts.push(write(doc, { ...PLAIN, order: (e) => [...e].reverse() }));
  const nums = [...new Set(numbersOf(doc))];
  for (const n of nums)
    for (const alt of otherNumbers(n)) texts.push(canonical(mapNumbers(doc, (x) => (x === n ? alt : x))));
  if (nums.length > 1) texts.push(canonical(mapNumbers(doc, (x) => otherNumbers(x)[0])));
  texts.push(write(doc, { ...PLAIN, str: escapedString }));
  texts.push(write(doc, { ...PLAIN, str: (s) => JSON.stringify(s).replace(/\//g, "\\/") }));
  if (withPretty) texts.push(pretty(doc));
  return [...new Set(texts)];
}
function getAt(doc, at) {
  let d = doc;
  for (const h of at) d = Array.isArray(d) ? d[h] : d.obj[h][1];
  return d;
}

/**
 * Verdicts of one engine on every test of `groups`. `compile(schema)` returns `accepts(text)`
 * (whole text accepted and complete) or throws when the engine refuses the schema. Each result:
 * `{ name, group, file, valid, verdict, text?, error? }`, verdict "pass", "over" (a valid
 * instance refused in `text`: its canonical text, or its spaced one — its indented one with
 * `pretty`), "under" (an invalid instance accepted in `text`, one of `spellings`) or "error"
 * (the schema refused; `error` is the message).
 */
export function judgeSuite(groups, compile, { pretty: withPretty = false } = {}) {
  const out = [];
  for (const g of groups) {
    let accepts, error;
    try {
      accepts = compile(g.schema);
    } catch (e) {
      error = e;
    }
    for (const t of g.tests) {
      const base = { name: testName(g, t), file: g.file, group: g.group, valid: t.valid };
      if (!accepts) {
        out.push({ ...base, verdict: "error", error: String(error?.message ?? error) });
        continue;
      }
      if (t.valid) {
        const texts = [canonical(t.doc), withPretty ? pretty(t.doc) : spaced(t.doc)];
        const refused = texts.find((x) => !accepts(x));
        out.push(refused === undefined ? { ...base, verdict: "pass" } : { ...base, verdict: "over", text: refused });
      } else {
        const accepted = spellings(t.doc, { pretty: withPretty }).find((x) => accepts(x));
        out.push(accepted === undefined ? { ...base, verdict: "pass" } : { ...base, verdict: "under", text: accepted });
      }
    }
  }
  return out;
}
