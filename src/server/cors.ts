// Cross-origin requests from browser clients (a web app calling the server with fetch), off unless
// the server is started with the origins it answers (--cors, startServer({ cors })). @fastify/cors
// writes the headers: Access-Control-Allow-Origin for a listed origin (or "*" for any), and answers
// a preflight from such an origin (OPTIONS with Origin) with a 204 naming the methods and echoing
// the requested headers. Its hook runs before the Host and key checks (app.ts), since a preflight
// carries no credentials and an error a page cannot read is no help to it. A request from an origin
// not listed, or without Origin, gets no CORS headers and is served as before (a plain OPTIONS gets
// 405). Streamed answers write their headers themselves, taking the ones set here from the reply
// (the SseWriter takes them when it starts).
import cors from "@fastify/cors";
import type { FastifyInstance } from "fastify";

/** Checks startServer's cors: origins as browsers send them (scheme://host[:port]), or "*" for any. */
export function checkCorsOrigins(origins: unknown): string[] | undefined {
  if (origins === undefined) return undefined;
  const ok = (o: unknown) => typeof o === "string" && (o === "*" || /^https?:\/\/[^/\s?#]+$/i.test(o));
  if (!Array.isArray(origins) || origins.length === 0 || !origins.every(ok))
    throw new TypeError(
      `cors must be a non-empty array of origins ("https://app.example", "http://localhost:3000") or ["*"] for any, got ${JSON.stringify(origins)}`,
    );
  return origins.map((o: string) => (o === "*" ? o : o.replace(/\/$/, "").toLowerCase()));
}

export function enableCors(app: FastifyInstance, origins: readonly string[]): void {
  const any = origins.includes("*");
  app.register(cors, {
    origin: (origin, cb) => {
      const allowed = origin !== undefined && (any || origins.includes(origin.toLowerCase()));
      cb(null, allowed ? (any ? "*" : origin) : false);
    },
    methods: ["GET", "HEAD", "POST"],
    strictPreflight: false,
    maxAge: 600,
    // Headers a browser script may read: the retry hint of a 429 or 503.
    exposedHeaders: ["retry-after"],
  });
}
