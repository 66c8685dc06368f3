// `toolmask serve` with a way to ask for a full garbage collection: started as
// `node --expose-gc serve-gc-child.mjs ROOT serve …` with an IPC channel (memory-soak.mjs); the
// message "gc" collects and answers process.memoryUsage() (bytes). What survives a full collection
// is what the server holds; the RSS a user sees also holds the garbage V8 has not collected yet,
// and after a collection the heap pages V8 keeps committed for later (heapTotal − heapUsed).
import path from "node:path";
import { pathToFileURL } from "node:url";

const [root, ...args] = process.argv.slice(2);
process.on("message", (m) => {
  if (m !== "gc") return;
  globalThis.gc();
  process.send(process.memoryUsage());
});
process.channel?.unref(); // the channel alone does not keep the server running
const { main } = await import(pathToFileURL(path.join(root, "dist", "cli", "dispatch.js")).href);
process.exitCode = await main(args);
