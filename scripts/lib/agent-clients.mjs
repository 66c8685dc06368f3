// The real agent clients as npm packages: installing a pinned version into a folder of its own,
// the environment they run in offline (nothing inherited but PATH: no telemetry, no updates, a
// private HOME), and running one as a child process with a time limit. Used by `npm run clients`
// (scripts/clients.mjs, what the client suites run) and `npm run corpus:capture`.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const INSTALL_TIMEOUT_MS = 600_000;

/** The clients the suites run (test/clients/), each at the version pinned here: it runs on Node 20 or ships its own binary. */
export const AGENT_CLIENTS = [
  {
    id: "claude-code",
    package: "@anthropic-ai/claude-code",
    version: "2.1.328",
    bin: "claude",
    api: "anthropic-messages",
  },
  { id: "codex", package: "@openai/codex", version: "0.171.0", bin: "codex", api: "openai-responses" },
  // 0.15.10 is the newest release whose engines field allows Node 20 (0.21.2 and later ask for >= 22).
  { id: "qwen-code", package: "@qwen-code/qwen-code", version: "0.15.10", bin: "qwen", api: "openai-chat" },
  { id: "opencode", package: "opencode-ai", version: "1.18.33", bin: "opencode", api: "openai-chat" },
];

export const tail = (s = "", n = 2000) => (s.length > n ? `…${s.slice(-n)}` : s);

/** Where `pkg@version` is installed under `root`. */
export const installDir = (root, { package: pkg, version }) => path.join(root, `${pkg.replace("/", "+")}@${version}`);

/** The client's executable under `root`, or undefined when it is not installed at its version. */
export function installedBin(root, client) {
  const dir = installDir(root, client);
  const manifest = path.join(dir, "node_modules", client.package, "package.json");
  if (!existsSync(manifest) || JSON.parse(readFileSync(manifest, "utf8")).version !== client.version) return undefined;
  return path.join(dir, "node_modules", ".bin", client.bin);
}

/** Installs `pkg@version` under `root` once (npm, its own folder, no lockfile kept); returns the folder. */
export function installPackage(root, spec, log = console.log) {
  const { package: pkg, version } = spec;
  const dir = installDir(root, spec);
  const manifest = path.join(dir, "node_modules", pkg, "package.json");
  if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).version === version) return dir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "package.json"), '{ "private": true }\n');
  log(`installing ${pkg}@${version} into ${dir}`);
  const r = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--save-exact", `${pkg}@${version}`], {
    cwd: dir,
    encoding: "utf8",
    timeout: INSTALL_TIMEOUT_MS,
  });
  if (r.status !== 0)
    throw new Error(
      `npm install ${pkg}@${version} failed (${r.error?.message ?? `exit ${r.status}`}):\n${tail(r.stderr)}`,
    );
  return dir;
}

/** The environment a client gets: nothing inherited but PATH, no telemetry, no updates; `home` private. */
export function baseEnv(home) {
  const tmp = path.join(home, "tmp");
  mkdirSync(tmp, { recursive: true });
  return {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: tmp,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_DATA_HOME: path.join(home, ".local/share"),
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    CI: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DO_NOT_TRACK: "1",
  };
}

/** Runs `cmd` with exactly `env`, its process group killed after `timeoutMs`. */
export function runChild(cmd, args, { env, cwd, timeoutMs }) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }, timeoutMs);
    child.on("error", (e) => (output += `\nspawn error: ${e.message}`));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, output });
    });
  });
}
