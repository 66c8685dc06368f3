// How long a client may take to send a request, how long an unused connection stays open, and how
// many connections the server holds at once — Node's HTTP server enforces each; this file picks
// the defaults, checks the options and hands them to fastify. None of them limits the time spent
// answering: a request that has arrived may be generated for as long as it takes.
//
// - headersTimeout: the request line and headers within this long of the request's first byte — or
//   of connecting, for a connection's first request, so a connection that sends nothing is closed
//   after it too. Node checks it every `checkInterval` ms; beyond it Node emits clientError with
//   ERR_HTTP_REQUEST_TIMEOUT (answered 408 by client-errors.ts).
// - requestTimeout: the whole request, headers and body, within this long; the same 408.
// - idleTimeout: a keep-alive connection with no request in flight is closed after this long
//   (Node's keepAliveTimeout; Node 20 adds one second to it).
// - maxConnections: Node closes a connection accepted beyond this many at once, before it is read.
import type { ServerOptions as HttpServerOptions } from "node:http";

export interface ConnectionLimits {
  headersTimeout: number;
  requestTimeout: number;
  idleTimeout: number;
  maxConnections: number;
}

export const DEFAULT_LIMITS: Readonly<ConnectionLimits> = {
  headersTimeout: 10_000,
  requestTimeout: 60_000,
  idleTimeout: 5_000,
  maxConnections: 256,
};

/** The longest a timeout may be: Node's timers hold 2^31-1 ms. */
const MAX_MS = 2 ** 31 - 1;

function positiveInt(name: string, v: unknown, unit: string, max: number): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > max)
    throw new RangeError(`${name} must be an integer from 1 to ${max} (${unit}), got ${String(v)}`);
  return v;
}

/** The limits with defaults filled in; a RangeError names the option that is out of range. */
export function connectionLimits(o: Partial<Record<keyof ConnectionLimits, unknown>>): ConnectionLimits {
  const ms = (name: keyof ConnectionLimits) =>
    o[name] === undefined ? DEFAULT_LIMITS[name] : positiveInt(name, o[name], "milliseconds", MAX_MS);
  const limits: ConnectionLimits = {
    headersTimeout: ms("headersTimeout"),
    requestTimeout: ms("requestTimeout"),
    idleTimeout: ms("idleTimeout"),
    maxConnections:
      o.maxConnections === undefined
        ? DEFAULT_LIMITS.maxConnections
        : positiveInt("maxConnections", o.maxConnections, "connections", 1_000_000),
  };
  // Node refuses this too, with a message that names neither option as given here.
  if (limits.headersTimeout > limits.requestTimeout)
    throw new RangeError(
      `headersTimeout (${limits.headersTimeout} ms) must not be longer than requestTimeout (${limits.requestTimeout} ms): the headers are part of the request`,
    );
  return limits;
}

/**
 * How often Node looks for requests past headersTimeout or requestTimeout: a quarter of the shorter
 * one, between 25 ms and 1 s (Node's own default is 30 s, which would let a 10 s timeout run 40 s).
 */
export function checkInterval(l: ConnectionLimits): number {
  return Math.min(1000, Math.max(25, Math.floor(Math.min(l.headersTimeout, l.requestTimeout) / 4)));
}

/** Fastify's options for these limits (maxConnections is set on the server once it exists). */
export function fastifyLimitOptions(l: ConnectionLimits): {
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionTimeout: number;
  http: HttpServerOptions;
} {
  return {
    requestTimeout: l.requestTimeout,
    keepAliveTimeout: l.idleTimeout,
    // No socket inactivity timeout: it would cut a non-streamed answer while it is being generated.
    connectionTimeout: 0,
    http: {
      headersTimeout: l.headersTimeout,
      requestTimeout: l.requestTimeout,
      connectionsCheckingInterval: checkInterval(l),
      // A request without Host is refused by the Host check (hosts.ts), in OpenAI's error shape.
      requireHostHeader: false,
    },
  };
}
