// Requests Node's HTTP server refuses before fastify sees them — a request line or headers that
// are not HTTP/1.1, headers over Node's size limit, a request not received within its timeouts —
// answered in OpenAI's error shape (Node's own answers have no body, fastify's another shape), then
// the connection is closed: after such an error Node cannot read the rest of that connection.
import { maxHeaderSize, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { ApiError } from "./errors.js";
import type { ConnectionLimits } from "./connections.js";

interface ClientError extends Error {
  code?: string;
  /** llhttp's description of what it could not parse. */
  reason?: string;
}

function errorFor(err: ClientError, limits: ConnectionLimits): ApiError {
  switch (err.code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new ApiError(
        408,
        `the request was not received in time: this server waits headersTimeout (${limits.headersTimeout} ms) for a request's line and headers and requestTimeout (${limits.requestTimeout} ms) for the whole request, body included; send it without pauses`,
        { code: "request_timeout" },
      );
    case "HPE_HEADER_OVERFLOW":
      return new ApiError(
        431,
        `the request line and headers are larger than the ${maxHeaderSize} bytes this server accepts; send fewer or shorter headers`,
        { code: "request_header_fields_too_large" },
      );
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return new ApiError(413, "the request's chunk extensions are too large; send the body without chunk extensions", {
        code: "request_too_large",
      });
    default: {
      const why = err.reason ?? err.message;
      return new ApiError(
        400,
        `the request is not valid HTTP/1.1 (${err.code ?? "parse error"}: ${why}); send a request line "METHOD /path HTTP/1.1" and well-formed headers`,
        { code: "invalid_http" },
      );
    }
  }
}

/** Fastify's `clientErrorHandler`: what to answer on a connection Node could not read a request from. */
export function clientErrorHandler(limits: ConnectionLimits): (err: ClientError, socket: Duplex) => void {
  return (err, socket) => {
    // A reset connection is gone; there is nobody to answer.
    if (err.code === "ECONNRESET" || socket.destroyed) return;
    const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    // An answer already begun on this connection cannot be followed by another.
    if (socket.writable && !response?.headersSent) {
      const e = errorFor(err, limits);
      const body = JSON.stringify(e.body());
      socket.write(
        `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status] ?? "Error"}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(err);
  };
}
