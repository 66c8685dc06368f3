// `toolmask generate --schema FILE` as a user runs it (the built CLI in a child process, the test
// model): the parsed object alone on stdout, ajv-valid; a chat response_format in the file works too.
// An answer cut by --max-tokens, a file that is missing or not JSON, a schema that is not an object
// or that the lowering refuses: one line on stderr saying what to do, exit 1, nothing on stdout.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ajvWithFormats } from "../support/ajv-formats.js";
import { cli, type CliRun } from "../support/cli-run.js";
import { testModelPath } from "../support/test-model.js";
import { MARGIN, NO_TOKENS, timeoutFor } from "../support/timeouts.js";

const CHOICE = {
  type: "object",
  properties: { ok: { type: "boolean" }, n: { enum: [1, 2, 3] }, tag: { type: "string", pattern: "^[a-c]{1,3}$" } },
  required: ["ok", "n", "tag"],
  additionalProperties: false,
};
const valid = ajvWithFormats("2020").compile(CHOICE);

/**
 * A CLI process's start to its first decode (node, the addon, the model loaded): 5.4 s measured at
 * load average 19 (`time toolmask generate … --max-tokens 3`, refused after the model loads).
 */
const CLI_START_MS = 5_400;
/** One run: the CLI started, at most 300 tokens decoded. */
const RUN = timeoutFor({ decode: 300 }) + MARGIN * CLI_START_MS;
let dir: string;
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "toolmask-cli-schema-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const generate = (schema: string, ...more: string[]) =>
  cli(
    ["generate", "--model", testModelPath(), "--prompt", "Pick one.", "--threads", "1", "--schema", schema, ...more],
    { timeout: RUN },
  );

function expectError(r: CliRun, message: RegExp): void {
  expect([r.code, r.stdout], r.stderr).toEqual([1, ""]);
  expect(r.stderr.split("\n")[0]).toMatch(/^toolmask generate: /);
  expect(r.stderr.split("\n")[0]).toMatch(message);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe("toolmask generate --schema", () => {
  it("prints the parsed object, which fits the schema (a schema file, and a response_format file)", {
    timeout: 4 * RUN,
  }, async () => {
    const plain = file("choice.json", JSON.stringify(CHOICE));
    const wrapped = file(
      "format.json",
      JSON.stringify({ type: "json_schema", json_schema: { name: "choice", schema: CHOICE, strict: true } }),
    );
    for (const [path, seed] of [
      [plain, "1"],
      [plain, "2"],
      [wrapped, "3"],
    ] as const) {
      const r = await generate(path, "--max-tokens", "300", "--seed", seed);
      expect(r.code, r.stderr).toBe(0);
      const v = JSON.parse(r.stdout) as unknown;
      expect({ v, valid: valid(v) }).toEqual({ v, valid: true });
    }
  });

  it("an answer cut by --max-tokens: exit 1 saying to raise it, no object", { timeout: 2 * RUN }, async () => {
    // greedy, the test model writes JSON whitespace wherever the schema allows it (measured: cut at 16)
    const r = await generate(file("cut.json", JSON.stringify(CHOICE)), "--max-tokens", "16", "--temperature", "0");
    expectError(r, /cut at --max-tokens 16 .*raise --max-tokens/);
    expectError(
      await generate(file("small.json", JSON.stringify(CHOICE)), "--max-tokens", "3"),
      /shortest answer .* takes at least \d+ tokens/,
    );
  });

  it("a bad file or schema: one line naming the file, exit 1, before the model loads", {
    timeout: timeoutFor({ ...NO_TOKENS, requests: 5 }) + 5 * MARGIN * CLI_START_MS,
  }, async () => {
    expectError(await generate(join(dir, "missing.json")), /schema file .*missing\.json: no such file/);
    expectError(await generate(file("bad.json", "{nope")), /schema file .*bad\.json is not valid JSON/);
    expectError(await generate(file("array.json", "[1]")), /schema file .*array\.json must hold a JSON Schema object/);
    expectError(
      await generate(file("if.json", JSON.stringify({ type: "object", properties: { v: { if: {} } } }))),
      /schema file .*if\.json: responseFormat\.schema\.properties\.v\.if: "if" is not supported/,
    );
    expectError(
      await generate(file("none.json", JSON.stringify({ type: "json_schema", json_schema: { name: "x" } }))),
      /json_schema\.schema must be a JSON Schema object/,
    );
  });
});
