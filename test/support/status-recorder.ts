// A pass-through in front of a server that records the status of every answer, for tests whose
// client retries a refused request on its own (Claude Code drops a field the server refused and
// sends the request again, so its output never shows the 400). Bytes go through unchanged.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface StatusRecorder {
  url: string;
  /** "METHOD path status", one per answered request, in order. */
  answers: string[];
  close(): Promise<void>;
}

export async function statusRecorder(target: string): Promise<StatusRecorder> {
  const to = new URL(target);
  const answers: string[] = [];
  const server = http.createServer((req, res) => {
    const up = http.request(
      { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
      (r) => {
        answers.push(`${req.method} ${req.url?.split("?")[0]} ${r.statusCode}`);
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on("error", () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    answers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
