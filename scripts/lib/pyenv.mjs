// The Python environment that tests, benchmarks and oracles use (never the npm package at run
// time): one venv in .cache/pyenv, filled from python/requirements-<group>.txt (pinned versions,
// wheels only, so no package's setup code runs). A group is reinstalled only when its file changes.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const PYENV_DIR = process.env.TOOLMASK_PYENV || path.join(ROOT, ".cache/pyenv");
export const REQUIREMENTS_DIR = path.join(ROOT, "python");

/** The venv's python, whether or not it exists yet. */
export const pyenvPython = () => path.join(PYENV_DIR, "bin/python");

/** The requirement groups the repo defines (python/requirements-<group>.txt). */
export function requirementGroups() {
  if (!existsSync(REQUIREMENTS_DIR)) return [];
  return readdirSync(REQUIREMENTS_DIR)
    .map((f) => /^requirements-(.+)\.txt$/.exec(f)?.[1])
    .filter(Boolean)
    .sort();
}

const stampPath = (group) => path.join(PYENV_DIR, `.toolmask-${group}.sha256`);
const requirementsPath = (group) => path.join(REQUIREMENTS_DIR, `requirements-${group}.txt`);
const digest = (group) =>
  createHash("sha256")
    .update(readFileSync(requirementsPath(group)))
    .digest("hex");

/** Whether `group` is installed in the venv as its requirements file now reads. */
export function groupInstalled(group) {
  if (!existsSync(pyenvPython()) || !existsSync(requirementsPath(group))) return false;
  return existsSync(stampPath(group)) && readFileSync(stampPath(group), "utf8").trim() === digest(group);
}

/**
 * The venv's python when every group in `groups` is installed; otherwise undefined. Tests use it
 * to skip with `pyenvHint(groups)` (or to fail under CI=true).
 */
export function pythonWith(groups) {
  return groups.every(groupInstalled) ? pyenvPython() : undefined;
}

/** The one line that says how to install `groups`. */
export const pyenvHint = (groups) =>
  `run \`npm run pyenv -- ${groups.join(" ")}\` to install the Python packages this needs (into .cache/pyenv, from PyPI)`;

/** Records `group` as installed from its current requirements file. */
export function markInstalled(group) {
  mkdirSync(PYENV_DIR, { recursive: true });
  writeFileSync(stampPath(group), `${digest(group)}\n`);
}

/** Whether `group`'s file says `# pyenv: only when named`: a bare `npm run pyenv` leaves it out. */
export function onlyWhenNamed(group) {
  return /^# pyenv: only when named$/m.test(readFileSync(requirementsPath(group), "utf8"));
}

/**
 * Whether `group`'s file asks for pip's --no-deps (a line `# pyenv: --no-deps`): for a package whose
 * declared dependencies are far more than the part of it we run; the file then lists what that part
 * imports.
 */
export function pipNoDeps(group) {
  return readFileSync(requirementsPath(group), "utf8")
    .split("\n")
    .some((l) => l.trim() === "# pyenv: --no-deps");
}

export { requirementsPath };
