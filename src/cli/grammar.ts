// `toolmask grammar`: the grammar a dialect and its tools define, for other engines (GBNF for
// llama.cpp, Lark for llguidance) or as our IR (JSON).
import { existsSync } from "node:fs";
import { extname } from "node:path";
import { buildToolGrammar } from "../dialects/grammar.js";
import { EbnfExportError, toEbnf } from "../grammar/export/ebnf.js";
import { toGbnf } from "../grammar/export/gbnf.js";
import { toLark } from "../grammar/export/lark.js";
import { lowerJsonSchemas } from "../grammar/json-schema/index.js";
import { Vocabulary } from "../vocab/vocabulary.js";
import { choiceFlag, parseFlags, requireFlag } from "./args.js";
import type { Command } from "./command.js";
import { DIALECT_FLAGS, DIALECT_HELP, dialectOptions } from "./dialect-flags.js";
import { CliError } from "./errors.js";

const usage =
  "usage: toolmask grammar --dialect D --tools FILE --format gbnf|lark|ir [--vocab FILE] [options]\n" +
  "Prints the grammar that masks decoding for these tools in this dialect.\n" +
  DIALECT_HELP +
  "\n" +
  "  --format F            gbnf (llama.cpp), lark (llguidance) or ir (toolmask's grammar IR as JSON)\n" +
  "  --vocab FILE          a .gguf or tokenizer.json: protocol markers become that vocabulary's special\n" +
  "                        tokens (<[id]> in GBNF), exactly as toolmask masks; without it they stay text";

function loadVocab(path: string): Vocabulary {
  if (!existsSync(path)) throw new CliError(`vocabulary file ${path}: no such file`);
  try {
    return extname(path) === ".gguf" ? Vocabulary.fromGguf(path) : Vocabulary.fromTokenizerJson(path);
  } catch (e) {
    throw new CliError(`cannot read a vocabulary from ${path}: ${(e as Error).message}`);
  }
}

async function run(argv: string[]): Promise<number> {
  const args = parseFlags(argv, { ...DIALECT_FLAGS, format: { type: "string" }, vocab: { type: "string" } });
  const format = choiceFlag(args.format, "--format", ["gbnf", "lark", "ir"] as const);
  const options = dialectOptions(args);
  requireFlag(args.tools, "--tools");
  const grammar = buildToolGrammar(options);
  const vocab = args.vocab !== undefined ? loadVocab(requireFlag(args.vocab, "--vocab")) : undefined;
  let out: string;
  try {
    if (format === "ir") out = JSON.stringify(grammar, null, 2);
    else if (format === "lark") out = toLark(grammar, vocab);
    else out = vocab ? toGbnf(grammar, vocab) : toEbnf(lowerJsonSchemas(grammar), { target: "gbnf" });
  } catch (e) {
    // toolmask masks this grammar; the text format cannot spell it within its size limits.
    if (e instanceof EbnfExportError)
      throw new CliError(
        `${e.message} (--format ir has the whole grammar; smaller maxLength bounds make it exportable)`,
      );
    throw e;
  }
  process.stdout.write(out.endsWith("\n") ? out : `${out}\n`);
  return 0;
}

export const grammarCommand: Command = { name: "grammar", usage, run };
