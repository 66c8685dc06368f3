// One upstream answer read as it arrives: the response body (JSON, or server-sent events) through
// the engine adapter into pieces of text, call fragments and the end. A stream that closes before
// its end, or breaks, is an UpstreamError: never an answer that looks complete.
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { EngineAdapter, StreamState, UpstreamPiece } from "./engines/types.js";
import { UpstreamError } from "./pool.js";

export async function* readAnswer(
  response: Response,
  engine: EngineAdapter,
  stream: boolean,
  url: string,
): AsyncGenerator<UpstreamPiece, void, undefined> {
  if (!stream) {
    let body: unknown;
    try {
      body = await response.json();
    } catch (err) {
      throw new UpstreamError(`${url} sent an answer that is not JSON: ${(err as Error).message}`);
    }
    yield engine.readBody(body);
    return;
  }
  if (!response.body) throw new UpstreamError(`${url} sent an empty stream`);
  const state: StreamState = { text: "" };
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  let ended = false;
  try {
    for await (const event of events) {
      if (event.data === "[DONE]") break;
      if (ended) continue; // usage-only events after the end
      let data: unknown;
      try {
        data = JSON.parse(event.data);
      } catch {
        throw new UpstreamError(`${url} sent a stream event that is not JSON: ${event.data.slice(0, 200)}`);
      }
      if (data && typeof data === "object" && "error" in data)
        throw new UpstreamError(`${url} ended the stream with an error: ${JSON.stringify(data.error).slice(0, 500)}`);
      const piece = engine.readEvent(data, state);
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
