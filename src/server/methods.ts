// Every other method on a known route — OPTIONS, TRACE, PUT, PROPFIND, … — is answered 405 with an
// Allow header naming the methods the route serves, instead of fastify's 404 for a method without a
// handler. The route's methods are recorded as routes are added (GET brings HEAD, as fastify
// exposes it), and the rest are registered on the same paths, so fastify's router decides which
// path a request is for exactly as it does for the real handlers.
import { METHODS } from "node:http";
import type { FastifyInstance } from "fastify";
import { ApiError } from "./errors.js";

/**
 * Starts recording the routes added to `app`; the function it returns, called once they all are,
 * adds the 405 handlers. CONNECT is left out: Node hands it to a `connect` listener, never a route.
 */
export function refuseOtherMethods(app: FastifyInstance): () => void {
  const served = new Map<string, Set<string>>();
  let sealed = false;
  app.addHook("onRoute", (route) => {
    if (sealed) return;
    const methods = served.get(route.url) ?? new Set<string>();
    for (const m of [route.method].flat()) methods.add(m);
    served.set(route.url, methods);
  });
  return () => {
    sealed = true;
    for (const m of METHODS) if (m !== "CONNECT" && !app.supportedMethods.includes(m)) app.addHttpMethod(m);
    for (const [url, methods] of served) {
      const allow = [...methods];
      const others = app.supportedMethods.filter((m) => !methods.has(m));
      app.route({
        method: others,
        url,
        handler: async (req) => {
          throw new ApiError(
            405,
            `${req.method} is not allowed on ${req.url.split("?")[0]}; use ${allow.join(" or ")}`,
            {
              code: "method_not_allowed",
              headers: { allow: allow.join(", ") },
            },
          );
        },
      });
    }
  };
}
