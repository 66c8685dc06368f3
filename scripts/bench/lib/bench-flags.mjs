// The benches' command lines. Each scripts/bench entry calls readFlags first, before any work,
// with its flags (name -> the placeholder of its value, or false for a switch) and the command
// that runs it; the words after the script are checked against them: --help (or -h) prints the
// usage line and the script's header comment and exits 0; an unknown flag, a flag without its
// value (a value never starts with "--") or a word that follows no flag exits 2 with the usage
// line, so a misspelt flag never runs the default size nor overwrites bench/results.
// arg/args/has then read the values; naming a flag the script did not declare throws.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";

/** @type {{ table: Record<string, string | false>, values: Map<string, Array<string | true>> } | null} */
let declared = null;

/** --smallest was given (false until readFlags has read the command line). */
export let smallest = false;

/** The `//` comment lines at the top of `file` (after a #! line), unprefixed. */
function headerComment(file) {
  const lines = readFileSync(file, "utf8").split("\n");
  if (lines[0]?.startsWith("#!")) lines.shift();
  const head = [];
  for (const line of lines) {
    if (!line.startsWith("//")) break;
    head.push(line.replace(/^\/\/ ?/, ""));
  }
  return head.join("\n");
}

/**
 * Checks process.argv against the script's flags; exits 0 after --help, 2 on a bad command line.
 * @param {string} url the script's import.meta.url (its header comment is the --help text)
 * @param {{ command: string, flags: Record<string, string | false>, internal?: Record<string, string | false> }} spec
 *   command: how the script is run ("npm run bench:decode --"); flags: those shown in the usage;
 *   internal: accepted, not shown (the flags a bench passes to its own child processes).
 * @returns {Map<string, Array<string | true>>} each given flag's values, in order
 */
export function readFlags(url, { command, flags, internal = {} }) {
  const table = { ...flags, ...internal };
  const usage = `usage: ${command} ${Object.entries(flags)
    .map(([name, value]) => `[--${name}${value === false ? "" : ` ${value}`}]`)
    .join(" ")} [--help]`;
  const argv = process.argv.slice(2);
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(`${usage}\n\n${headerComment(fileURLToPath(url))}`);
    process.exit(0);
  }
  const fail = (message) => {
    process.stderr.write(`${basename(fileURLToPath(url))}: ${message}\n${usage}\n`);
    process.exit(2);
  };
  const values = new Map();
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    const name = word.startsWith("--") ? word.slice(2) : null;
    if (name === null) fail(`unexpected argument ${JSON.stringify(word)}: every value follows its flag`);
    if (!Object.hasOwn(table, name)) fail(`unknown flag ${JSON.stringify(word)}`);
    let value = true;
    if (table[name] !== false) {
      value = argv[++i];
      if (value === undefined || value.startsWith("--")) fail(`--${name} needs a value: --${name} ${table[name]}`);
    }
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  declared = { table, values };
  smallest = values.has("smallest");
  return values;
}

function valuesOf(name) {
  if (!declared) throw new Error(`--${name} read before readFlags (scripts/bench/lib/bench-flags.mjs)`);
  if (!Object.hasOwn(declared.table, name)) throw new Error(`--${name} is not among the flags this script declares`);
  return declared.values.get(name) ?? [];
}

/** The value after the first `--name`, or `dflt`. */
export const arg = (name, dflt) => valuesOf(name)[0] ?? dflt;

/** `--name` as a whole number of at least `min` (else `dflt`); exits 2 naming the flag when it is not one. */
export function intArg(name, dflt, min = 1) {
  const v = Number(arg(name, dflt));
  if (!Number.isInteger(v) || v < min) {
    process.stderr.write(
      `--${name} must be a whole number of at least ${min}, got ${JSON.stringify(arg(name, dflt))}\n`,
    );
    process.exit(2);
  }
  return v;
}

/** The values of every `--name` given, in order. */
export const args = (name) => valuesOf(name);

/** Whether `--name` was given. */
export const has = (name) => valuesOf(name).length > 0;
