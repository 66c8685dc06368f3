// Error messages reach clients; the model's place on disk must not (it tells a caller the user's
// name, folder layout, what else is there). Messages from the library name the model by its path
// (the chat template's errors, a model without a template, the vocabulary's source); every error
// body the server sends passes through one redactor, which writes the model's id for its path and
// "<model folder>" for the folder it is in.
import { realpathSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { escapeRegex } from "../parser/escape-regex.js";

export type Redact = (text: string) => string;

export function pathRedactor(modelPath: string, modelId: string): Redact {
  const paths = new Set([modelPath, resolve(modelPath)]);
  try {
    paths.add(realpathSync(modelPath));
  } catch {
    /* a path that is gone is still redacted as given */
  }
  const files = [...paths].filter((p) => p.length > 0);
  // A folder alone is replaced only where it starts a path ("/home/u/models/…"), and never "/" or ".".
  const folders = [...new Set(files.map((p) => dirname(p)))].filter((d) => d.length > 1 && d !== ".");
  const alternatives = [
    ...files.map((p) => ({ re: escapeRegex(p), to: modelId })),
    ...folders.map((d) => ({ re: `${escapeRegex(d)}(?=[/\\\\])`, to: "<model folder>" })),
  ].sort((a, b) => b.re.length - a.re.length);
  if (alternatives.length === 0) return (text) => text;
  const re = new RegExp(alternatives.map((a) => `(${a.re})`).join("|"), "g");
  return (text) =>
    text.replace(re, (...groups) => {
      const at = groups.slice(1, 1 + alternatives.length).findIndex((g) => g !== undefined);
      return alternatives[at]!.to;
    });
}
