// A response body read up to a byte limit, the rest left unread: an upstream's answer under the
// gateway's cap (body-cap.ts), or the start of an upstream's error body.

/**
 * Up to `limit` bytes of `response`'s body as text (UTF-8, as response.text() decodes it), and
 * whether there was more; the rest is not read (the body is cancelled).
 */
export async function readUpTo(response: Response, limit: number): Promise<{ text: string; over: boolean }> {
  const declared = Number(response.headers.get("content-length"));
  if (!response.body || (Number.isFinite(declared) && declared > limit)) {
    await response.body?.cancel().catch(() => {});
    return { text: "", over: response.body !== null };
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let over = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.byteLength > limit) {
        chunks.push(value.subarray(0, limit - size));
        size = limit;
        over = true;
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    if (over) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  return { text: new TextDecoder().decode(Buffer.concat(chunks, size)), over };
}
