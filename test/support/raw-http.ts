// HTTP/1.1 over a raw socket, for what an ordinary client would refuse to send or would fix up:
// headers a byte at a time, a body that never ends, a request line that is not HTTP, a socket
// that says nothing. Resolves when the server closes the connection, with everything it sent.
// httpRequest: one request through node:http, as given.
import { request } from "node:http";
import net from "node:net";

export interface RawExchange {
  /** Everything the server sent before it closed the connection. */
  text: string;
  /** The first response's status, when one came. */
  status: number | undefined;
  /** The first response's headers, lower-cased names. */
  headers: Record<string, string>;
  /** The first response's body parsed as JSON, when it is JSON. */
  json: unknown;
  /** Responses received (keep-alive connections may carry several). */
  responses: number;
  /** How the connection ended: "closed" (end or close from the server) or the socket error's code. */
  ended: string;
}

/** Splits the first response out of what a server sent: status, headers and a Content-Length body. */
export function parseResponse(text: string): Pick<RawExchange, "status" | "headers" | "json" | "responses"> {
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1];
  const headEnd = text.indexOf("\r\n\r\n");
  const headers: Record<string, string> = {};
  if (headEnd >= 0) {
    for (const line of text.slice(0, headEnd).split("\r\n").slice(1)) {
      const colon = line.indexOf(":");
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
  }
  let json: unknown;
  if (headEnd >= 0) {
    const length = Number(headers["content-length"] ?? NaN);
    const body = Number.isFinite(length) ? text.slice(headEnd + 4, headEnd + 4 + length) : text.slice(headEnd + 4);
    try {
      json = JSON.parse(body);
    } catch {
      json = undefined;
    }
  }
  return {
    status: status ? Number(status) : undefined,
    headers,
    json,
    responses: (text.match(/HTTP\/1\.[01] \d{3} /g) ?? []).length,
  };
}

/**
 * Opens a connection to `url`'s host and port and runs `script` on it once connected (it may write
 * now and later; what it returns is called when the connection ends, to stop timers). Resolves once
 * the server has closed the connection.
 */
export function rawExchange(
  url: string,
  script: ((socket: net.Socket) => void) | ((socket: net.Socket) => () => void),
): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let text = "";
    let ended = "closed";
    let cleanup: undefined | (() => void);
    const socket = net.connect(Number(port), hostname.replace(/^\[|\]$/g, ""), () => {
      const after = script(socket);
      if (typeof after === "function") cleanup = after;
    });
    socket.setEncoding("latin1");
    socket.on("data", (d: string) => (text += d));
    socket.on("error", (e: NodeJS.ErrnoException) => {
      ended = e.code ?? e.message;
    });
    socket.on("end", () => socket.end());
    socket.on("close", () => {
      cleanup?.();
      resolve({ text, ended, ...parseResponse(text) });
    });
  });
}

/** Writes `piece` every `everyMs` until the connection closes; returns the stopper rawExchange wants. */
export function trickle(socket: net.Socket, piece: string, everyMs: number): () => void {
  const timer = setInterval(() => {
    if (socket.writable) socket.write(piece);
  }, everyMs);
  return () => clearInterval(timer);
}

/** A whole request as text: method, path, headers (Host defaults to the url's), and a body. */
export function requestText(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): string {
  const { host } = new URL(url);
  const all: Record<string, string> = {
    host,
    ...headers,
    ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}),
  };
  return `${method} ${path} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("")}\r\n${body ?? ""}`;
}

export interface HttpReply {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * One request through node:http, sent as given (fetch and the API clients would refuse some of
 * these, or fix them up): `body` with its content-length. The server may answer (413) before
 * reading all of a large body and close: that is the answer. `agent: false` opens a connection of
 * its own, closed after the answer.
 */
export function httpRequest(
  url: string,
  o: { method?: string; path: string; body?: string | Buffer; headers?: Record<string, string>; agent?: false },
): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const length = o.body !== undefined ? { "content-length": String(Buffer.byteLength(o.body)) } : {};
    const req = request(
      new URL(o.path, url),
      {
        method: o.method ?? "POST",
        headers: { ...length, ...o.headers },
        ...(o.agent === false ? { agent: false } : {}),
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode!, body: text, headers: res.headers }));
      },
    );
    req.on("error", reject);
    if (o.body !== undefined) req.write(o.body);
    req.end();
  });
}
