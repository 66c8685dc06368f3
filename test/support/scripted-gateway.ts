// A gateway (our server with `upstreams`) in front of a ScriptedOpenAI upstream, started in
// beforeAll and closed in afterAll of the file or describe that calls useScriptedGateway.
import { afterAll, beforeAll } from "vitest";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import type { ServerOptions } from "../../src/server/options.js";
import { ScriptedOpenAI } from "./scripted-openai.js";

export interface ScriptedGateway {
  /** The upstream: its scripted replies and the requests it received. */
  upstream: ScriptedOpenAI;
  /** The gateway in front of it. */
  gateway: ToolmaskServer;
}

/**
 * `options(origin)` gives the gateway's options for the upstream's origin; by default the
 * verify-only engine "openai" (the upstream applies nothing; the gateway checks every answer).
 */
export function useScriptedGateway(
  options: (origin: string) => ServerOptions = (origin) => ({
    port: 0,
    upstreams: { urls: [origin], engine: "openai" },
  }),
): ScriptedGateway {
  const fixture = {} as ScriptedGateway;
  beforeAll(async () => {
    fixture.upstream = await ScriptedOpenAI.start({ health: true });
    fixture.gateway = await startServer(options(fixture.upstream.origin));
  });
  afterAll(async () => {
    await fixture.gateway?.close();
    await fixture.upstream?.close();
  });
  return fixture;
}
