// One upstream answer read as it arrives: the response body (JSON, or server-sent events) through
// the engine adapter into pieces of text, call fragments and the end, under the cap of body-cap.ts
// (a streamed answer's text too), its JSON read by upstream-json.ts (a key given twice is a
// verdict, never resolved in silence). A stream that closes before its end, or breaks, is an
// UpstreamError: never an answer that looks complete.
import { boundedEvents, readBodyText, type BodyCap } from "./body-cap.js";
import type { EngineAdapter, StreamState, UpstreamPiece } from "./engines/types.js";
import { UpstreamError } from "./pool.js";
import { readUpstreamJson } from "./upstream-json.js";

/** The characters of answer a piece carries: text, reasoning, call fragments. */
function pieceSize(p: UpstreamPiece): number {
  let size = p.text.length + (p.reasoning?.length ?? 0);
  for (const c of p.callDeltas ?? []) size += (c.id?.length ?? 0) + (c.name?.length ?? 0) + (c.arguments?.length ?? 0);
  return size;
}

export async function* readAnswer(
  response: Response,
  engine: EngineAdapter,
  stream: boolean,
  url: string,
  cap: BodyCap,
): AsyncGenerator<UpstreamPiece, void, undefined> {
  if (!stream) {
    const read = readUpstreamJson(await readBodyText(response, cap, url), "an answer", url, engine.callsAt?.(false));
    yield engine.readBody(read.value, read.calls);
    return;
  }
  if (!response.body) throw new UpstreamError(`${url} sent an empty stream`);
  const state: StreamState = { text: "" };
  const events = boundedEvents(response.body, cap, url);
  let ended = false;
  let size = 0;
  try {
    for await (const event of events) {
      if (event.data === "[DONE]") break;
      if (ended) continue; // usage-only events after the end
      const read = readUpstreamJson(event.data, "a stream event", url, engine.callsAt?.(true));
      const data = read.value;
      if (data && typeof data === "object" && "error" in data)
        throw new UpstreamError(`${url} ended the stream with an error: ${JSON.stringify(data.error).slice(0, 500)}`);
      const piece = engine.readEvent(data, state, read.calls);
      size += pieceSize(piece);
      if (size > cap.bytes) throw new UpstreamError(`${url} streamed an answer over ${cap.what}`);
      state.text += piece.text;
      if (piece.end) ended = true;
      yield piece;
    }
  } catch (err) {
    if (err instanceof UpstreamError) throw err;
    if ((err as Error)?.name === "AbortError") throw err;
    throw new UpstreamError(`the stream from ${url} broke: ${(err as Error).message}`);
  }
  if (!ended) {
    const end = engine.endOfStream?.(state);
    if (!end) throw new UpstreamError(`the stream from ${url} ended before the answer did`);
    yield { text: "", end };
  }
}
