// The `toolmask` extension field every API's answer carries from a gateway (chat/response.ts,
// responses/response.ts, anthropic/response.ts).
import type { GenerateResult } from "../engine/generate.js";

/**
 * A gateway's answer says where it came from and how far the grammar was enforced there (an
 * extension field: OpenAI clients ignore it); the last streamed chunk carries it too.
 */
export function toolmaskField(r: GenerateResult | undefined) {
  return r?.upstream
    ? {
        toolmask: {
          upstream: r.upstream.url,
          engine: r.upstream.engine,
          grammar: r.upstream.enforcement,
          incomplete: r.incomplete,
        },
      }
    : {};
}
