// An upstream's URL as a user gives it, checked before the gateway starts.
import { ENGINE_ROUTES } from "./engines/registry.js";

/**
 * The ports Node's fetch refuses ("bad port"): the Fetch standard's port blocking list
 * (https://fetch.spec.whatwg.org/#port-blocking), as Node 20's fetch applies it (every port from 1
 * to 11,000 tried: these 82 and no other refused).
 */
export const BAD_PORTS: readonly number[] = [
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110,
  111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532,
  540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061,
  6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
];

const trimSlash = (u: string) => u.replace(/\/+$/, "");

/**
 * Checks one upstream URL given by a user: http(s), no query, no credentials, a port Node's fetch
 * takes, the server's root and not one of its routes. An OpenAI client's base URL (ending in
 * /v1) is taken as the root it is under. Returns the root, without a trailing slash.
 */
export function checkUpstreamUrl(u: unknown): string {
  if (typeof u !== "string" || u === "") throw new TypeError("an upstream must be a URL such as http://127.0.0.1:8081");
  let url: URL;
  try {
    url = new URL(u);
  } catch {
    throw new TypeError(`upstream ${JSON.stringify(u)} is not a URL; give one such as http://127.0.0.1:8081`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new TypeError(`upstream ${JSON.stringify(u)} must be http:// or https://`);
  if (url.search || url.hash || url.username || url.password)
    throw new TypeError(`upstream ${JSON.stringify(u)} must have no query, fragment or credentials`);
  const port = Number(url.port || (url.protocol === "http:" ? 80 : 443));
  if (BAD_PORTS.includes(port))
    throw new TypeError(
      `upstream ${JSON.stringify(u)} is on port ${port}, which Node's fetch refuses (a "bad port" of the Fetch standard, https://fetch.spec.whatwg.org/#port-blocking): serve the engine on another port`,
    );
  const path = trimSlash(url.pathname);
  const route = ENGINE_ROUTES.find((r) => path.endsWith(r) || path.endsWith(r.replace(/^\/v1/, "")));
  if (route !== undefined) {
    const at = path.endsWith(route) ? route : route.replace(/^\/v1/, "");
    const root = trimSlash(`${url.origin}${path.slice(0, -at.length).replace(/\/v1$/, "")}`);
    throw new TypeError(
      `upstream ${JSON.stringify(u)} names the route ${at}: give the server's root (${root}); the gateway adds the route of its --engine`,
    );
  }
  return trimSlash(`${url.origin}${path.replace(/\/v1$/, "")}`);
}
