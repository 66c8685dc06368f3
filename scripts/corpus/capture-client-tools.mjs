#!/usr/bin/env node
// `npm run corpus:capture`: the tool schemas real clients send, as fixtures in
// test/fixtures/client-tools/<id>.json (test/no-model/client-tools.test.ts compiles them).
// Each client is installed at a pinned version into .cache/client-corpus/pkg/ (npm), then:
// - an agent client (Claude Code, Codex CLI, Qwen Code, opencode) runs one prompt offline against a loopback
//   server (scripts/corpus/recorder.mjs) that records its requests and answers the smallest valid
//   response of its API; the tools of every recorded request, across the client's runs, are kept;
// - an MCP server is asked for its `tools/list` through @modelcontextprotocol/sdk's stdio client.
// Prose (descriptions, titles, examples) is removed (scripts/corpus/strip-prose.mjs). The whole
// requests go to .cache/client-corpus/captures/ (not committed: they hold the clients' prompts).
//   npm run corpus:capture [-- --only ID[,ID]] [--out DIR]
// Exit 0: every fixture written; 1: a client failed (the error and its output's tail are printed).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { baseEnv, installPackage, runChild, tail } from "../lib/agent-clients.mjs";
import { startRecorder } from "./recorder.mjs";
import { fixtureTool, unionTools } from "./strip-prose.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const cacheDir = path.join(root, ".cache/client-corpus");
const CHILD_TIMEOUT_MS = 120_000;
const PROMPT = "hi";
/** Claude Code `version`, run as is and with tool search off (it then sends more tools). */
const claudeCode = (version) => ({
  id: `claude-code-${version}`,
  package: "@anthropic-ai/claude-code",
  version,
  api: "anthropic-messages",
  bin: "claude",
  runs: [
    { label: `claude -p ${PROMPT}`, args: ["-p", PROMPT] },
    {
      label: `claude -p ${PROMPT} with ENABLE_TOOL_SEARCH=false`,
      args: ["-p", PROMPT],
      env: { ENABLE_TOOL_SEARCH: "false" },
    },
  ],
});

const SDK = { package: "@modelcontextprotocol/sdk", version: "1.32.2" };

/** Agent clients: each run is one prompt; `env` and `args` per run. */
const AGENTS = [
  claudeCode("2.1.328"),
  claudeCode("2.1.197"),
  {
    id: "codex-0.171.0",
    package: "@openai/codex",
    version: "0.171.0",
    api: "openai-responses",
    bin: "codex",
    // A model Codex has no metadata for (its fallback tools), and one it knows (apply_patch as a
    // custom grammar tool, tool_search): two tool sets (web_search differs), a fixture each.
    runs: [
      ["capture-model", ""],
      ["gpt-5.5", "-gpt-5.5"],
    ].map(([model, suffix]) => ({
      label: `codex exec ${PROMPT}, model ${model}, wire_api "responses"`,
      args: ["exec", "--skip-git-repo-check", PROMPT],
      model,
      suffix,
    })),
  },
  {
    id: "qwen-code-0.15.10",
    package: "@qwen-code/qwen-code",
    version: "0.15.10",
    api: "openai-chat",
    bin: "qwen",
    runs: [
      {
        label: `qwen -p ${PROMPT} --auth-type openai --approval-mode yolo`,
        args: ["-p", PROMPT, "--auth-type", "openai", "--approval-mode", "yolo"],
      },
    ],
  },
  {
    id: "opencode-1.18.33",
    package: "opencode-ai",
    version: "1.18.33",
    api: "openai-chat",
    bin: "opencode",
    // Its model is a provider of its config (clientEnv writes opencode.json); models.dev not fetched.
    config: "opencode",
    runs: [{ label: `opencode run ${PROMPT}`, args: ["run", PROMPT] }],
  },
];

/** MCP servers over stdio; `args(dir)` gets a scratch directory. */
const MCP_SERVERS = [
  {
    id: "mcp-server-filesystem-2026.8.31",
    package: "@modelcontextprotocol/server-filesystem",
    version: "2026.8.31",
    bin: "mcp-server-filesystem",
    args: (dir) => [dir],
  },
  {
    id: "mcp-server-everything-2026.8.31",
    package: "@modelcontextprotocol/server-everything",
    version: "2026.8.31",
    bin: "mcp-server-everything",
    args: () => ["stdio"],
  },
  {
    id: "playwright-mcp-0.0.86",
    package: "@playwright/mcp",
    version: "0.0.86",
    bin: "playwright-mcp",
    args: () => ["--caps", "vision,pdf,devtools"],
  },
];

const USAGE = "usage: npm run corpus:capture [-- --only ID[,ID]] [--out DIR]";

function parseFlags(argv) {
  const out = { out: path.join(root, "test/fixtures/client-tools") };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s);
    const value = () => inline ?? argv[++i];
    if (flag === "--only") out.only = value()?.split(",");
    else if (flag === "--out") out.out = path.resolve(value() ?? "");
    else if (flag === "--help") {
      console.log(USAGE);
      process.exit(0);
    } else {
      console.error(`unknown argument ${JSON.stringify(argv[i])}\n${USAGE}`);
      process.exit(2);
    }
  }
  const ids = [...AGENTS, ...MCP_SERVERS].map((c) => c.id);
  for (const id of out.only ?? [])
    if (!ids.includes(id)) {
      console.error(`unknown client ${JSON.stringify(id)}; the clients are ${ids.join(", ")}`);
      process.exit(2);
    }
  return out;
}

/** The package's install folder under .cache/client-corpus/pkg: installed there once. */
const install = (spec) => installPackage(path.join(cacheDir, "pkg"), spec);

/** A fresh scratch folder under .cache/client-corpus/tmp (so HOME, TMPDIR and the work dir are private). */
function scratch(prefix) {
  mkdirSync(path.join(cacheDir, "tmp"), { recursive: true });
  return mkdtempSync(path.join(cacheDir, "tmp", `${prefix}-`));
}

/** The environment and files that point `client` at the recorder at `url`. */
function clientEnv(client, run, url, home) {
  if (client.api === "anthropic-messages") return { ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "sk-ant-capture" };
  if (client.config === "opencode") {
    const dir = path.join(home, ".config", "opencode");
    mkdirSync(dir, { recursive: true });
    const provider = {
      npm: "@ai-sdk/openai-compatible",
      name: "capture",
      options: { baseURL: `${url}/v1`, apiKey: "capture" },
      models: { "capture-model": { name: "capture-model" } },
    };
    writeFileSync(
      path.join(dir, "opencode.json"),
      JSON.stringify({ provider: { capture: provider }, model: "capture/capture-model" }),
    );
    return { OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1" };
  }
  if (client.api === "openai-chat")
    return { OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: "capture", OPENAI_MODEL: "capture-model" };
  const codexHome = path.join(home, ".codex");
  mkdirSync(codexHome);
  writeFileSync(
    path.join(codexHome, "config.toml"),
    [
      `model = ${JSON.stringify(run.model)}`,
      'model_provider = "capture"',
      'approval_policy = "never"',
      'sandbox_mode = "read-only"',
      "[model_providers.capture]",
      'name = "capture"',
      `base_url = ${JSON.stringify(`${url}/v1`)}`,
      'wire_api = "responses"',
      'env_key = "CAPTURE_API_KEY"',
      "request_max_retries = 0",
      "stream_max_retries = 0",
      "",
    ].join("\n"),
  );
  return { CODEX_HOME: codexHome, CAPTURE_API_KEY: "capture" };
}

/** Tools of a recorded request body, whatever the API. */
const requestTools = (body) => (body && Array.isArray(body.tools) ? body.tools : []);

/** The client's fixtures: its runs grouped by `suffix` (the fixture `<id><suffix>.json`), the tools of a group's runs joined. */
async function captureAgent(client) {
  const dir = install(client);
  const bin = path.join(dir, "node_modules", ".bin", client.bin);
  const groups = new Map();
  const raw = [];
  for (const run of client.runs) {
    const suffix = run.suffix ?? "";
    if (!groups.has(suffix)) groups.set(suffix, { suffix, how: [], lists: [] });
    const group = groups.get(suffix);
    group.how.push(run.label);
    const recorder = await startRecorder();
    const home = scratch(client.id);
    try {
      const env = { ...baseEnv(home), ...clientEnv(client, run, recorder.url, home), ...run.env };
      const r = await runChild(bin, run.args, { env, cwd: home, timeoutMs: CHILD_TIMEOUT_MS });
      const withTools = recorder.requests.filter((q) => requestTools(q.body).length > 0);
      raw.push({ run: run.label, exit: r.code, requests: recorder.requests });
      if (r.timedOut || r.code !== 0 || withTools.length === 0)
        throw new Error(
          `${client.id} (${run.label}): ${r.timedOut ? `timed out after ${CHILD_TIMEOUT_MS} ms` : `exit ${r.code ?? r.signal}`}, ` +
            `${recorder.requests.length} requests (${withTools.length} with tools); output:\n${tail(r.output)}`,
        );
      for (const q of withTools) group.lists.push(requestTools(q.body).map(fixtureTool));
    } finally {
      await recorder.close();
      rmSync(home, { recursive: true, force: true });
    }
  }
  saveRaw(client.id, raw);
  return [...groups.values()].map((g) => ({ suffix: g.suffix, how: g.how, tools: unionTools(g.lists) }));
}

async function captureMcp(server) {
  const dir = install(server);
  const sdkDir = install(SDK);
  const esm = path.join(sdkDir, "node_modules", SDK.package, "dist/esm");
  const { Client } = await import(pathToFileURL(path.join(esm, "client/index.js")).href);
  const { StdioClientTransport } = await import(pathToFileURL(path.join(esm, "client/stdio.js")).href);
  const home = scratch(server.id);
  const args = server.args(home);
  const transport = new StdioClientTransport({
    command: path.join(dir, "node_modules", ".bin", server.bin),
    args,
    env: baseEnv(home),
    cwd: home,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => (stderr += d));
  const client = new Client({ name: "toolmask-corpus", version: "1" });
  const timer = setTimeout(() => transport.close(), CHILD_TIMEOUT_MS);
  try {
    await client.connect(transport, { timeout: CHILD_TIMEOUT_MS });
    const tools = [];
    let cursor;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: CHILD_TIMEOUT_MS });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    saveRaw(server.id, [{ run: "tools/list", server: client.getServerVersion(), tools }]);
    const shown = args.map((a) => (a === home ? "<scratch dir>" : a));
    const how = [`${server.bin} ${shown.join(" ")}`.trim(), `tools/list through ${SDK.package}@${SDK.version} (stdio)`];
    return [{ suffix: "", how, tools: tools.map(fixtureTool) }];
  } catch (e) {
    throw new Error(`${server.id}: ${e.message}; stderr:\n${tail(stderr)}`);
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
    rmSync(home, { recursive: true, force: true });
  }
}

function saveRaw(id, runs) {
  const dir = path.join(cacheDir, "captures");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${id}.json`), `${JSON.stringify(runs, null, 1)}\n`);
}

const API_OF_MCP = "mcp-tools-list";

async function main() {
  const flags = parseFlags(process.argv.slice(2));
  mkdirSync(flags.out, { recursive: true });
  const captured = new Date().toISOString().slice(0, 10);
  let failed = 0;
  for (const client of [...AGENTS, ...MCP_SERVERS]) {
    if (flags.only && !flags.only.includes(client.id)) continue;
    try {
      const isAgent = AGENTS.includes(client);
      for (const { suffix, how, tools } of isAgent ? await captureAgent(client) : await captureMcp(client)) {
        const fixture = {
          package: client.package,
          version: client.version,
          captured,
          api: isAgent ? client.api : API_OF_MCP,
          how,
          notice:
            "Input schemas only: every description, title, examples and comment removed (scripts/corpus/strip-prose.mjs).",
          tools,
        };
        const file = path.join(flags.out, `${client.id}${suffix}.json`);
        writeFileSync(file, `${JSON.stringify(fixture, null, 2)}\n`);
        console.log(`${client.id}${suffix}: ${tools.length} tools -> ${path.relative(root, file)}`);
      }
    } catch (e) {
      failed++;
      console.error(`FAILED ${e.message}`);
    }
  }
  process.exit(failed ? 1 : 0);
}

await main();
