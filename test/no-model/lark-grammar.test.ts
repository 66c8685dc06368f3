// The Lark front end (src/grammar/lark-reader.ts) and its way into the pattern lowering
// (src/grammar/json-schema/rx-source.ts): Codex's apply_patch grammar read as the language a
// hand-written RegExp of the same grammar accepts (on patches Codex writes and on near misses),
// the pattern source read back by parsePattern, and each construct it cannot read refused with the
// construct named.
import { describe, expect, it } from "vitest";
import { LarkGrammarError, larkToRx } from "../../src/grammar/lark-reader.js";
import { parsePattern } from "../../src/grammar/json-schema/pattern.js";
import { rxSource } from "../../src/grammar/json-schema/rx-source.js";
import { APPLY_PATCH_LARK, APPLY_PATCH_RE, NOT_PATCHES, PATCHES } from "../support/codex-request.js";

const asRegExp = (lark: string) => new RegExp(rxSource(larkToRx(lark)), "u");

describe("Codex's apply_patch grammar", () => {
  const re = asRegExp(APPLY_PATCH_LARK);
  it.each(PATCHES)("accepts what the hand-written oracle accepts: %j", (p) => {
    expect(APPLY_PATCH_RE.test(p)).toBe(true);
    expect(re.test(p)).toBe(true);
  });
  it.each(NOT_PATCHES)("refuses what the oracle refuses: %j", (p) => {
    expect(APPLY_PATCH_RE.test(p)).toBe(false);
    expect(re.test(p)).toBe(false);
  });
  it("its pattern source is one parsePattern reads (the lowering's own reader)", () => {
    expect(() => parsePattern(rxSource(larkToRx(APPLY_PATCH_LARK)), "$")).not.toThrow();
  });
});

describe("constructs", () => {
  it("ranges, ~ counts, [optional], aliases, comments, ?rule and priorities", () => {
    const re = asRegExp(
      '?start.2: x ~ 2 [y] "-" DIGIT ~ 1..3 -> z // a comment\nx: "a".."c"\ny: "q" | /r+/\n%import common.DIGIT\n',
    );
    for (const s of ["ab-1", "cc q-123", "abq-12", "aarrr-9"].map((t) => t.replace(" ", "")))
      expect(re.test(s)).toBe(true);
    for (const s of ["a-1", "ad-1", "ab-", "ab-1234", "abqq-1"]) expect(re.test(s)).toBe(false);
  });
  it("alternatives on continuation lines", () => {
    const re = asRegExp('start: "a"\n     | "b"\n     | "c"\n');
    expect(["a", "b", "c"].every((s) => re.test(s))).toBe(true);
    expect(re.test("ab")).toBe(false);
  });
  const refused: Array<[string, string, RegExp]> = [
    ["recursion", 'start: "(" start ")" | "x"', /start -> start is recursive/],
    ["recursion", 'start: a\na: "x" b\nb: a?', /a -> b -> a is recursive/],
    ["%ignore", 'start: "a"\n%import common.WS\n%ignore WS', /%ignore is not supported/],
    ["start", 'begin: "a"', /no "start" rule/],
    ["missing", "start: missing", /missing is used but not defined/],
    ["LF", "start: LF", /%import common\.LF/],
    ["common.ESCAPED_STRING", "start: ESCAPED_STRING\n%import common.ESCAPED_STRING", /is not supported; it knows/],
    ["/…/i", "start: /a/i", /flags \(i\)/],
    ['"…"i', 'start: "a"i', /case-insensitive/],
    ["template", 'start: _sep{x}\nx: "a"', /templates are not supported/],
    ["/(?=a)/", "start: /(?=a)/", /is not supported/],
    [
      "size",
      `start: r0\n${Array.from({ length: 40 }, (_, i) => `r${i}: r${i + 1} r${i + 1}`).join("\n")}\nr40: "x"`,
      /more than 100000 parts/,
    ],
    ["%import", "start: LF\n%import common.LF -> NL", /reads %import common\.NAME and %import common \(NAME, …\) only/],
  ];
  it("a count of a count, and an optional repetition", () => {
    const re = asRegExp('start: ("a" ~ 2) ~ 3 ("b"*)? ["c"+]');
    for (const s of ["aaaaaa", "aaaaaabbb", "aaaaaacc", "aaaaaabc"]) expect(re.test(s)).toBe(true);
    for (const s of ["aaaa", "aaaaaaa", "aaaaaacb"]) expect(re.test(s)).toBe(false);
  });
  it("%import common (NAME, …)", () => {
    const re = asRegExp("start: DIGIT LF\n%import common (DIGIT, LF)");
    expect(re.test("7\n")).toBe(true);
    expect(re.test("a\n")).toBe(false);
  });
  it.each(refused)("refused: %s", (construct, src, message) => {
    let err: unknown;
    try {
      larkToRx(src);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LarkGrammarError);
    expect((err as LarkGrammarError).construct).toBe(construct);
    expect((err as Error).message).toMatch(message);
  });
});
