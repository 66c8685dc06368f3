// A request's notices (GenerateResult.notices: a tool's "format" the grammar does not enforce …)
// told to the server's listener once per request, whole answer or stream, as the result arrives.
import type { GenerateResult } from "../engine/generate.js";
import type { ChatBackend } from "../engine/chat-backend.js";

/** `backend`, telling `onNotice` each result's notices. */
export function telling(backend: ChatBackend, onNotice: ((notice: string) => void) | undefined): ChatBackend {
  if (!onNotice) return backend;
  const tell = (r: GenerateResult | undefined) => {
    for (const n of r?.notices ?? []) onNotice(n);
  };
  const count = backend.countPromptTokens?.bind(backend);
  return {
    bounds: backend.bounds,
    defaultMaxTokens: backend.defaultMaxTokens,
    generate: async (options) => {
      const r = await backend.generate(options);
      tell(r);
      return r;
    },
    generateStream: async function* (options) {
      for await (const chunk of backend.generateStream(options)) {
        tell(chunk.result);
        yield chunk;
      }
    },
    ...(count ? { countPromptTokens: count } : {}),
  };
}
