// The Host header check against DNS rebinding: a web page on evil.example whose name an attacker
// re-points at 127.0.0.1 reaches a loopback server with `Host: evil.example`. A server bound to a
// loopback address therefore answers only requests naming a loopback host (localhost, 127.0.0.1,
// [::1], any port) unless told which other names to accept; one bound to another address (0.0.0.0,
// a LAN address) is reached under names it cannot know, and accepts any by default.
import { isIP } from "node:net";
import { ApiError } from "./errors.js";

/** Host names accepted (lower case, no port, no brackets), or "any". */
export type HostPolicy = ReadonlySet<string> | "any";

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "::1"];

/** Whether `host` (an address or name to bind) is reachable from this machine only. */
export function isLoopback(host: string): boolean {
  const h = bare(host);
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  return h === "::1" || /^::ffff:127\./.test(h);
}

/** "*", an IP address (IPv6 with or without brackets) or a DNS name; no port, scheme or path. */
function validEntry(a: unknown): boolean {
  return typeof a === "string" && (a === "*" || isIP(bare(a)) !== 0 || /^[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?$/i.test(a));
}

/** A host name as compared: lower case, without IPv6 brackets or a trailing dot. */
function bare(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "");
}

/**
 * The names a server bound to `bound` accepts: `allowed` (["*"] for any) added to the loopback
 * names; without `allowed`, the loopback names and `bound` itself when it is loopback, any otherwise.
 */
export function hostPolicy(bound: string, allowed: readonly string[] | undefined): HostPolicy {
  if (allowed !== undefined) {
    if (!Array.isArray(allowed) || allowed.some((a) => !validEntry(a)))
      throw new TypeError(
        `allowedHosts must be an array of host names without ports ("example.com", "192.168.1.5", "[::1]") or ["*"] for any, got ${JSON.stringify(allowed)}`,
      );
    if (allowed.includes("*")) return "any";
    return new Set([...LOOPBACK_NAMES, ...allowed.map(bare)]);
  }
  return isLoopback(bound) ? new Set([...LOOPBACK_NAMES, bare(bound)]) : "any";
}

/** The name in a Host header value ("localhost:8080" → "localhost", "[::1]:80" → "::1"). */
function hostName(header: string): string {
  const h = header.trim();
  if (h.startsWith("[")) return bare(h.slice(0, h.indexOf("]") + 1));
  const colon = h.lastIndexOf(":");
  return bare(colon >= 0 ? h.slice(0, colon) : h);
}

/** Throws the 4xx a request gets when its Host header is missing or not accepted. */
export function checkHost(header: string | undefined, httpVersion: string, policy: HostPolicy): void {
  if (header === undefined || header === "") {
    // HTTP/1.1 requires Host; HTTP/1.0 has none, which only a server accepting any name can take.
    if (httpVersion === "1.1" || policy !== "any")
      throw new ApiError(400, "the request has no Host header; send Host: <the server's name>:<port>", {
        code: "missing_host",
      });
    return;
  }
  if (policy === "any" || policy.has(hostName(header))) return;
  const shown = header.length > 100 ? `${header.slice(0, 100)}…` : header;
  throw new ApiError(
    403,
    `Host ${JSON.stringify(shown)} is not accepted: this server answers requests addressed to ${[...policy].map((n) => (n.includes(":") ? `[${n}]` : n)).join(", ")} (any port); ` +
      'start it with --allowed-hosts NAME (allowedHosts) to accept another name, or "*" for any',
    { code: "host_not_allowed" },
  );
}
