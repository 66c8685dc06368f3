// The root export's startServer: the server module (and fastify with it) is loaded on the first
// call, so `import "toolmask"` for the parser, the grammar or the engine loads no HTTP framework.
// `toolmask/server` exports the same function without the indirection.
import type { ServerOptions, ToolmaskServer } from "./options.js";

/** Starts the OpenAI-compatible server; see ServerOptions (docs/server.md). */
export async function startServer(options: ServerOptions): Promise<ToolmaskServer> {
  const server = await import("./index.js");
  return server.startServer(options);
}
