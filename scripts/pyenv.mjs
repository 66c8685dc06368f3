#!/usr/bin/env node
// npm run pyenv -- <group>... : installs python/requirements-<group>.txt into .cache/pyenv (a venv
// made with `python3 -m venv`; wheels only; a file with the line `# pyenv: --no-deps` is installed
// with pip's --no-deps, so it must list every package it needs). With no group: every group. --list: the groups and
// whether each is installed, as JSON. A group whose requirements file is unchanged is skipped.
// With no group, the groups that do not say `# pyenv: only when named`.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import {
  groupInstalled,
  markInstalled,
  onlyWhenNamed,
  pipNoDeps,
  PYENV_DIR,
  pyenvPython,
  requirementGroups,
  requirementsPath,
} from "./lib/pyenv.mjs";

const args = process.argv.slice(2);
const known = requirementGroups();
if (args.includes("--help")) {
  console.log(`usage: npm run pyenv -- [--list] [group...]\ngroups: ${known.join(", ")}`);
  process.exit(0);
}
if (args.includes("--list")) {
  console.log(
    JSON.stringify(
      known.map((group) => ({
        group,
        installed: groupInstalled(group),
        onlyWhenNamed: onlyWhenNamed(group),
        file: requirementsPath(group),
      })),
      null,
      2,
    ),
  );
  process.exit(0);
}
const bad = args.filter((a) => a.startsWith("-") || !known.includes(a));
if (bad.length) {
  console.error(
    `pyenv: unknown ${bad.map((b) => JSON.stringify(b)).join(", ")}; the groups are ${known.join(", ")} (python/requirements-<group>.txt)`,
  );
  process.exit(2);
}
// A group whose file says `# pyenv: only when named` (xgrammar: 5.9 GB) is left out of a bare run.
const groups = args.length ? args : known.filter((g) => !onlyWhenNamed(g));
for (const g of known)
  if (!args.length && onlyWhenNamed(g)) console.log(`pyenv: ${g} is installed only when named (npm run pyenv -- ${g})`);
const python = process.env.TOOLMASK_PYTHON || "python3";

function run(cmd, argv, what) {
  const r = spawnSync(cmd, argv, { stdio: "inherit", timeout: 30 * 60_000 });
  if (r.error?.code === "ENOENT")
    fail(`${cmd} is not on the PATH: install Python 3.11 with pip and venv (or set TOOLMASK_PYTHON)`);
  if (r.error || r.status !== 0)
    fail(`${what} failed (${r.error?.message ?? `exit ${r.status}`}); the output above says why`);
}
function fail(message) {
  console.error(`pyenv: ${message}`);
  process.exit(1);
}

if (!existsSync(pyenvPython())) run(python, ["-m", "venv", PYENV_DIR], `creating the venv in ${PYENV_DIR}`);
for (const group of groups) {
  if (groupInstalled(group)) {
    console.log(`pyenv: ${group} is installed`);
    continue;
  }
  const started = Date.now();
  const noDeps = pipNoDeps(group) ? ["--no-deps"] : [];
  run(
    pyenvPython(),
    [
      "-m",
      "pip",
      "install",
      "--disable-pip-version-check",
      "--no-input",
      "--progress-bar",
      "off",
      "--only-binary=:all:",
      ...noDeps,
      "-r",
      requirementsPath(group),
    ],
    `pip install${noDeps.map((a) => ` ${a}`).join("")} -r ${requirementsPath(group)}`,
  );
  markInstalled(group);
  console.log(`pyenv: ${group} installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
