// "format" as the grammar enforces it, against ajv-formats 3.0.1 (its default "full" mode): on at
// least 10,000 generated strings per format (test/support/format-strings.ts: fields at and past
// their bounds, and mutations), the grammar of {type: "string", format} accepts a string's JSON text
// exactly where ajv-formats accepts the string, and so do its grammars in Python literals and raw
// text, except the differences listed in DIFFERENCES (and in docs/json-schema.md), each of which
// must show up and none other. The same verdicts hold through the real parser, on the first 100
// strings of each format: JSON (hermes), Python literals (lfm2), raw text (qwen3-coder).
import { ajvWithFormats } from "../support/ajv-formats.js";
import { describe, expect, it } from "vitest";
import { buildToolGrammar, parseToolCalls } from "../../src/index.js";
import { getDialect } from "../../src/dialects/index.js";
import { jsonSchemaToIR } from "../../src/grammar/json-schema/index.js";
import { FORMATS, formatAccepts } from "../../src/grammar/json-schema/formats.js";
import type { Grammar } from "../../src/grammar/ir.js";
import { grammarAcceptor } from "../../src/parser/validate.js";
import { pyString, writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";
import { formatStrings } from "../support/format-strings.js";

const ajv = ajvWithFormats(); // mode "full", ajv-formats' default

const NAMES = Object.keys(FORMATS);
const oracle = Object.fromEntries(NAMES.map((f) => [f, ajv.compile({ type: "string", format: f })]));

/** A time as ajv-formats reads it (its TIME expression), in numbers. */
function timeFields(t: string) {
  const m = /^(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)$/i.exec(t);
  if (!m) return undefined;
  return { h: +m[1]!, m: +m[2]!, s: +m[3]!, zeroOffset: /^z$/i.test(m[4]!) || (+m[6]! === 0 && +(m[7] ?? 0) === 0) };
}
const timeOf = (format: string, s: string) => (format === "time" ? s : s.split(/t|\s/i)[1]!);

/**
 * Where the grammar and ajv-formats differ on purpose. `grammar`: the grammar's verdict where they
 * differ (ajv-formats says the opposite). A disagreement no entry claims fails the test.
 */
const DIFFERENCES: Array<{
  name: string;
  formats: string[];
  grammar: boolean;
  claims: (format: string, s: string) => boolean;
  example: Record<string, string>;
}> = [
  {
    name: "leap seconds",
    // ajv-formats takes second 60 wherever its offset arithmetic puts the time at 23:59 UTC, and
    // with it hours past 23 and minutes past 59 (24:59:60+01:00, 23:99:30+00:40); the grammar takes
    // second 60 at 23:59 with a zero offset only
    formats: ["time", "date-time"],
    grammar: false,
    claims: (format, s) => {
      const t = timeFields(timeOf(format, s));
      return !!t && (t.s >= 60 || t.h > 23 || t.m > 59) && !(t.h === 23 && t.m === 59 && t.zeroOffset);
    },
    example: { time: "15:59:60-08:00", "date-time": "2016-12-31T15:59:60-08:00" },
  },
];

/** Host names of every total length from 250 to 260, each without and with a final dot. */
function longHostnames(): string[] {
  const out: string[] = [];
  for (let n = 250; n <= 260; n++) {
    // labels of 63 characters, the last one shorter: n characters in all
    const labels: string[] = [];
    let left = n;
    while (left > 63) {
      const len = left - 64 >= 1 ? 63 : 62; // a dot and at least one character after it
      labels.push("x".repeat(len));
      left -= len + 1;
    }
    labels.push("y".repeat(left));
    const name = labels.join(".");
    out.push(name, `${name}.`);
  }
  return out;
}

/** Boundary values written out, beside the generated ones. */
const EXTRA: Record<string, string[]> = {
  "date-time": [
    "2020-02-29T23:59:60Z",
    "2021-02-29T10:00:00Z",
    "2016-12-31T23:59:60+00:00",
    "2016-12-31T15:59:60-08:00",
    "2000-01-01 00:00:00z",
    "2000-01-01\u300000:00:00z",
    "2000-01-01T00:00:00",
  ],
  date: ["2000-02-29", "1900-02-29", "2100-02-29", "2400-02-29", "0000-02-29", "2023-04-31", "9999-12-31"],
  time: ["23:59:60Z", "23:59:60.999-00:00", "15:59:60-08:00", "24:59:60+01:00", "00:00:00+23:59", "00:00:00+24:00"],
  duration: ["P", "PT", "P1W", "P1Y1W", "PT1", "P1Y2M3DT4H5M6S", "PT36H", "P0D"],
  email: ["a@b.co", "a@b", ".a@b.co", "a.@b.co", "a..b@c.co", "a@-b.co", "a@b-.co", "a@[1.2.3.4]"],
  hostname: [
    "a",
    "a.",
    ".a",
    "a..b",
    "-a",
    "a-",
    "a_b",
    "xn--mnchen-3ya.de",
    "münchen.de",
    "a".repeat(63),
    "a".repeat(64),
    // whole names of 250..260 characters, with and without a final dot (ajv-formats: at most 253, a final dot aside)
    ...longHostnames(),
  ],
  ipv4: ["0.0.0.0", "255.255.255.255", "256.0.0.0", "01.0.0.0", "1.2.3", "1.2.3.4.5"],
  ipv6: [
    "::",
    "::1",
    "1::",
    "1:2:3:4:5:6:7:8",
    "1:2:3:4:5:6:7:8:9",
    "::ffff:1.2.3.4",
    "1:2:3:4:5:6:1.2.3.4",
    "1::2:3:4:5:6:7",
    "fe80::1%eth0",
    "::1.2.3.4",
  ],
  uuid: [
    "123e4567-e89b-12d3-a456-426614174000",
    "URN:UUID:123E4567-E89B-12D3-A456-426614174000",
    "123e4567e89b12d3a456426614174000",
  ],
  uri: [
    "http://x.com/a?b#c",
    "x",
    "urn:",
    "a:b",
    "a:/b",
    "http://[::1]:80/",
    "http://[v1.x]/",
    "http:/x",
    "file:///a",
    "mailto:a@b.co",
    "http://a b",
  ],
};
for (const d of DIFFERENCES) for (const [f, s] of Object.entries(d.example)) EXTRA[f]!.push(s);

const STRINGS_PER_FORMAT = 10_000;
const strings = Object.fromEntries(NAMES.map((f) => [f, formatStrings(f, STRINGS_PER_FORMAT, EXTRA[f])]));

/** The grammar's expected verdict: ajv-formats', turned where a listed difference claims the string. */
function expected(format: string, s: string): { ok: boolean; difference?: string } {
  const ok = oracle[format]!(s);
  const d = DIFFERENCES.find((x) => x.formats.includes(format) && x.grammar !== ok && x.claims(format, s));
  return d ? { ok: d.grammar, difference: d.name } : { ok };
}

/** A string in each spelling: JSON text, a Python literal (repr's), raw text with its padding and close. */
const RAW = { close: "</parameter>", trimNewline: true };
const SPELLINGS = [
  { syntax: "json", write: (s: string) => JSON.stringify(s) },
  { syntax: "python", write: (s: string) => pyString(s) },
  { syntax: "raw", write: (s: string) => `\n${s}\n${RAW.close}` },
] as const;

describe("format: the grammar against ajv-formats", () => {
  it.each(NAMES)("%s", (format) => {
    const list = strings[format]!;
    expect(list.length).toBeGreaterThanOrEqual(STRINGS_PER_FORMAT);
    const accepts = SPELLINGS.map(({ syntax }) =>
      grammarAcceptor(jsonSchemaToIR({ type: "string", format }, { syntax, raw: RAW }) as Grammar),
    );
    const wrong: Array<{ s: string; syntax: string; grammar: boolean; ajv: boolean }> = [];
    const seen = new Set<string>();
    let valid = 0;
    for (const s of list) {
      const e = expected(format, s);
      if (e.difference) seen.add(e.difference);
      SPELLINGS.forEach(({ syntax, write }, i) => {
        const grammar = accepts[i]!(write(s));
        if (grammar !== e.ok) wrong.push({ s, syntax, grammar, ajv: oracle[format]!(s) });
      });
      // the expression the lowering reads is the one enum/const values are checked with
      if (formatAccepts(format, s) !== e.ok) wrong.push({ s, syntax: "formatAccepts", grammar: !e.ok, ajv: !e.ok });
      if (e.ok) valid++;
    }
    expect(wrong.slice(0, 10)).toEqual([]);
    // both verdicts well represented, so the comparison says something
    expect(valid).toBeGreaterThan(list.length * 0.1);
    expect(valid).toBeLessThan(list.length * 0.9);
    const listed = DIFFERENCES.filter((d) => d.formats.includes(format)).map((d) => d.name);
    expect([...seen].sort()).toEqual(listed.sort());
  });
});

/** The call f(v = value) as `dialect` writes it: raw text in XML dialects, a Python or JSON string elsewhere. */
const callText = (dialect: string, value: string) => {
  const spec = getDialect(dialect);
  return writeOutput(spec, [writeCall(spec, "f", [["v", JSON.stringify(value), value]])]);
};

describe.each([
  ["hermes", "JSON text"],
  ["lfm2", "Python literals"],
  ["qwen3-coder", "raw text"],
])("format through the parser: %s (%s)", (dialect) => {
  it.each(NAMES)("%s", (format) => {
    const tools = [
      {
        type: "function" as const,
        function: {
          name: "f",
          parameters: { type: "object", properties: { v: { type: "string", format } }, required: ["v"] },
        },
      },
    ];
    const accepts = grammarAcceptor(buildToolGrammar({ dialect, tools, toolChoice: "required" }));
    // the written boundary values and the first generated strings
    const values = strings[format]!.slice(0, 100);
    for (const value of values) {
      const text = callText(dialect, value);
      const ok = expected(format, value).ok;
      const r = parseToolCalls(text, { dialect, tools });
      const parsed = r.toolCalls.length === 1 && r.incomplete.length === 0;
      expect({ value, text, parsed }).toEqual({ value, text, parsed: ok });
      if (parsed) expect(JSON.parse(r.toolCalls[0]!.function.arguments)).toEqual({ v: value });
      expect({ value, text, grammar: accepts(text) }).toEqual({ value, text, grammar: ok });
    }
  });
});

describe("format next to the other string keywords", () => {
  // [schema, values]: each value's verdict is ajv-formats', on the grammar of the schema
  it.each([
    [{ type: "string", format: "date", enum: ["2020-02-29", "2021-02-29", "x"] }, ["2020-02-29", "2021-02-29", "x"]],
    [{ format: "email", const: "a@b.co" }, ["a@b.co", "b@b.co"]],
    [{ type: "string", format: "date", minLength: 10, maxLength: 10 }, ["2020-02-29", "2020-2-29"]],
    [{ type: "string", format: "ipv4", maxLength: 15 }, ["255.255.255.255", "1.2.3"]],
    [
      { type: "string", format: "uuid", minLength: 0, maxLength: 45 },
      ["urn:uuid:123e4567-e89b-12d3-a456-426614174000"],
    ],
    [{ type: ["string", "null"], format: "time" }, ["23:59:60Z", "24:00:00Z", null]],
    [
      {
        anyOf: [
          { type: "string", format: "ipv4" },
          { type: "string", format: "ipv6" },
        ],
      },
      ["1.2.3.4", "::1", "x"],
    ],
    [{ type: "integer", format: "date" }, [1, "2020-01-01"]],
    // a length bound or a pattern beside a format: both hold (the grammar's intersection)
    [
      { type: "string", format: "uri", maxLength: 30 },
      ["http://x.co/", `http://x.co/${"a".repeat(18)}`, `http://x.co/${"a".repeat(19)}`, "not a uri"],
    ],
    [
      { type: "string", format: "uuid", maxLength: 36 },
      ["123e4567-e89b-12d3-a456-426614174000", "urn:uuid:123e4567-e89b-12d3-a456-426614174000"],
    ],
    [
      { type: "string", format: "uri", maxLength: 2048 },
      [`http://x.co/${"a".repeat(2036)}`, `http://x.co/${"a".repeat(2037)}`],
    ],
    [{ type: "string", format: "email", minLength: 8 }, ["ab@cd.ef", "a@cd.ef", "not an email"]],
    [
      { type: "string", format: "date-time", pattern: "^2" },
      ["2020-01-01T00:00:00Z", "1999-01-01T00:00:00Z", "2x", "2020-13-01T00:00:00Z"],
    ],
    [
      { type: "string", format: "hostname", pattern: "\\.com$", maxLength: 12 },
      ["a.com", "abcdefgh.com", "abcdefghi.com", "a.org", "-a.com"],
    ],
  ])("%j", (schema, values) => {
    const valid = ajv.compile(schema);
    const accepts = grammarAcceptor(jsonSchemaToIR(schema) as Grammar);
    for (const v of values) expect({ v, grammar: accepts(JSON.stringify(v)) }).toEqual({ v, grammar: valid(v) });
  });

  it("a length bound that no string of the format meets matches nothing", () => {
    expect(() => jsonSchemaToIR({ type: "string", format: "date", maxLength: 9 })).toThrow(/matches no value/);
    const accepts = grammarAcceptor(
      jsonSchemaToIR({ anyOf: [{ type: "string", format: "uuid", minLength: 46 }, { type: "integer" }] }) as Grammar,
    );
    expect([accepts('"123e4567-e89b-12d3-a456-426614174000"'), accepts("1")]).toEqual([false, true]);
  });

  it.each([
    [{ anyOf: [{ type: "string" }], format: "date" }, "$.anyOf", /move "format" into the "anyOf" alternatives/],
  ])("refused beside a composition: %j", (schema, path, message) => {
    let e: unknown;
    try {
      jsonSchemaToIR(schema);
    } catch (err) {
      e = err;
    }
    expect((e as { name: string }).name).toBe("UnsupportedSchemaError");
    expect((e as { path: string }).path).toBe(path);
    expect((e as Error).message).toMatch(message);
  });
});
