// An OpenAI-compatible upstream (a plain HTTP server) that answers every chat request the same
// way: it reasons, says a line and makes two calls, the second outside pick_3's enum (so a gateway
// verifying them drops it); JSON whole, or as SSE chunks. Behind a gateway (startServer({ upstreams
// })) it shows each route's finished answer: thought, text, a valid call, finish "tool_calls".
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startServer } from "../../src/server/index.js";

export interface ScriptedUpstream {
  url: string;
  server: Server;
}

/** An OpenAI-compatible upstream that reasons, says a line and calls: JSON whole, or as SSE chunks. */
export function reasoningUpstream(): Promise<ScriptedUpstream> {
  const calls = [
    { id: "up_1", name: "pick_3", arguments: '{"n": 2003}' },
    { id: "up_2", name: "pick_3", arguments: '{"n": 7}' }, // not in the enum: verified away
  ];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: [{ id: "up" }] }));
        return;
      }
      const body = JSON.parse(raw) as { stream?: boolean };
      const usage = { prompt_tokens: 11, completion_tokens: 22, total_tokens: 33 };
      const tool_calls = calls.map((c, index) => ({
        index,
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: c.arguments },
      }));
      if (!body.stream) {
        const message = { role: "assistant", reasoning_content: "I should pick.", content: "Picking.", tool_calls };
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ choices: [{ index: 0, message, finish_reason: "tool_calls" }], usage }));
        return;
      }
      const chunk = (delta: object, finish: string | null = null) =>
        `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(chunk({ role: "assistant" }));
      res.write(chunk({ reasoning_content: "I should " }));
      res.write(chunk({ reasoning_content: "pick." }));
      res.write(chunk({ content: "Picking." }));
      res.write(chunk({ tool_calls }));
      res.write(chunk({}, "tool_calls"));
      res.write(`data: ${JSON.stringify({ choices: [], usage })}\n\n`);
      res.end("data: [DONE]\n\n");
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }),
    ),
  );
}

export interface ReasoningGateway {
  url: string;
  close(): Promise<void>;
}

/** Our server as a gateway (engine "openai": answers verified) in front of reasoningUpstream(). */
export async function reasoningGateway(): Promise<ReasoningGateway> {
  const upstream = await reasoningUpstream();
  const gateway = await startServer({
    port: 0,
    upstreams: { urls: [upstream.url], engine: "openai", healthInterval: 100 },
  });
  return {
    url: gateway.url,
    close: async () => {
      await gateway.close();
      await new Promise((r) => upstream.server.close(r));
    },
  };
}
