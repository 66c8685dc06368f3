#!/usr/bin/env node
// `npm run clients`: the real agent clients the client suites run (test/clients/), each at its
// pinned version (scripts/lib/agent-clients.mjs AGENT_CLIENTS) from npm into
// .cache/clients/<package>@<version>/. A client already there at its version is not installed again.
//   npm run clients [-- --only ID[,ID]] [--list]
// Exit 0: done; 1: an install failed (npm's output tail says why); 2: bad flags.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { AGENT_CLIENTS, installPackage, installedBin } from "./lib/agent-clients.mjs";

export const CLIENTS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", ".cache", "clients");
const USAGE = `usage: npm run clients [-- --only ID[,ID]] [--list]
  --only   these clients (${AGENT_CLIENTS.map((c) => c.id).join(", ")}); default: all
  --list   print [{ id, package, version, bin, installed }] as JSON, install nothing`;

function parseFlags(argv) {
  const out = { only: undefined, list: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s);
    if (flag === "--list") out.list = true;
    else if (flag === "--only") out.only = (inline ?? argv[++i] ?? "").split(",").filter(Boolean);
    else if (flag === "--help") {
      console.log(USAGE);
      process.exit(0);
    } else {
      console.error(`unknown argument ${JSON.stringify(argv[i])}\n${USAGE}`);
      process.exit(2);
    }
  }
  for (const id of out.only ?? [])
    if (!AGENT_CLIENTS.some((c) => c.id === id)) {
      console.error(
        `unknown client ${JSON.stringify(id)}; the clients are ${AGENT_CLIENTS.map((c) => c.id).join(", ")}`,
      );
      process.exit(2);
    }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const flags = parseFlags(process.argv.slice(2));
  const chosen = AGENT_CLIENTS.filter((c) => !flags.only || flags.only.includes(c.id));
  if (flags.list) {
    const rows = chosen.map((c) => ({ ...c, installed: installedBin(CLIENTS_DIR, c) !== undefined }));
    console.log(JSON.stringify(rows, null, 2));
  } else {
    for (const c of chosen) {
      try {
        const t0 = Date.now();
        installPackage(CLIENTS_DIR, c);
        console.log(`${c.id}: ${c.package}@${c.version} ready (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
      } catch (e) {
        console.error(`${c.id}: ${e.message}`);
        process.exit(1);
      }
    }
  }
}
