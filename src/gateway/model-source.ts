// The model a gateway serves, read from local files only: its vocabulary (markers resolve to its
// special tokens; exported grammars name them), chat template, BOS/EOS texts and dialect. A GGUF
// is read without loading weights (the same file llama-server serves); a Hugging Face model folder
// gives tokenizer.json and tokenizer_config.json (or chat_template.jinja), as vLLM and SGLang read it.
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { detectModelDialect, stderrNotice } from "../engine/detect-dialect.js";
import type { ChatModel } from "../engine/prepare-chat.js";
import { readGgufMetadata } from "../vocab/gguf.js";
import { Vocabulary } from "../vocab/vocabulary.js";

export class ModelSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelSourceError";
  }
}

const text = (v: Vocabulary, id: unknown): string =>
  typeof id === "number" && Number.isInteger(id) && id >= 0 && id < v.size
    ? new TextDecoder().decode(v.tokenBytes(id))
    : "";

function fromGguf(file: string, onNotice: (n: string) => void): ChatModel {
  const meta = readGgufMetadata(file);
  const vocabulary = Vocabulary.fromGguf(file);
  const template = meta.get("tokenizer.chat_template");
  const chatTemplate = typeof template === "string" ? template : "";
  const name = meta.get("general.name");
  return {
    path: file,
    vocabulary,
    chatTemplate,
    dialect: detectModelDialect(chatTemplate, typeof name === "string" ? name : undefined, {
      name: `the chat template of ${file}`,
      onNotice,
    }),
    bosToken: text(vocabulary, meta.get("tokenizer.ggml.bos_token_id")),
    eosToken: text(vocabulary, meta.get("tokenizer.ggml.eos_token_id")),
  };
}

/** tokenizer_config.json spells a token as a string or as an AddedToken object. */
function tokenString(v: unknown): string {
  if (typeof v === "string") return v;
  if (v && typeof v === "object" && typeof (v as { content?: unknown }).content === "string")
    return (v as { content: string }).content;
  return "";
}

function readJson(file: string): Record<string, unknown> {
  try {
    const v = JSON.parse(readFileSync(file, "utf8"));
    if (v && typeof v === "object" && !Array.isArray(v)) return v;
  } catch (err) {
    throw new ModelSourceError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  throw new ModelSourceError(`${file} must hold a JSON object`);
}

function fromFolder(dir: string, onNotice: (n: string) => void): ChatModel {
  const tokenizer = path.join(dir, "tokenizer.json");
  if (!existsSync(tokenizer))
    throw new ModelSourceError(`${dir} has no tokenizer.json; give a Hugging Face model folder or a .gguf file`);
  const configFile = path.join(dir, "tokenizer_config.json");
  const config = existsSync(configFile) ? readJson(configFile) : {};
  const jinja = path.join(dir, "chat_template.jinja");
  let chatTemplate = typeof config.chat_template === "string" ? config.chat_template : "";
  if (!chatTemplate && existsSync(jinja)) chatTemplate = readFileSync(jinja, "utf8");
  const eos = tokenString(config.eos_token);
  const vocabulary = Vocabulary.fromTokenizerJson(tokenizer, eos ? { eogPieces: [eos] } : {});
  return {
    path: dir,
    vocabulary,
    chatTemplate,
    dialect: detectModelDialect(chatTemplate, undefined, { name: `the chat template of ${dir}`, onNotice }),
    bosToken: tokenString(config.bos_token),
    eosToken: eos,
  };
}

/**
 * The model at `source`: a .gguf file, or a folder holding tokenizer.json (and tokenizer_config.json
 * or chat_template.jinja for the template). Throws ModelSourceError saying what is missing.
 */
export function loadModelSource(source: string, onNotice: (n: string) => void = stderrNotice): ChatModel {
  if (typeof source !== "string" || source === "")
    throw new ModelSourceError("the gateway needs the model's tokenizer: a .gguf file or a Hugging Face model folder");
  if (!existsSync(source)) throw new ModelSourceError(`${source} does not exist`);
  const model = statSync(source).isDirectory() ? fromFolder(source, onNotice) : fromGguf(source, onNotice);
  if (!model.chatTemplate)
    throw new ModelSourceError(
      `${source} has no chat template (tokenizer.chat_template / chat_template); the gateway renders prompts with it`,
    );
  return model;
}
