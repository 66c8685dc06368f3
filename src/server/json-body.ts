// Request bodies are JSON in UTF-8 (RFC 8259 §8.1). Decoded as Node decodes text, other bytes
// would become U+FFFD and the request would go on with text the client did not send (a tool named
// "f\ufffd\ufffd", masked and called under that name); a body that is not UTF-8 is refused instead,
// with the offset of its first bad byte. A body nested deeper than MAX_NESTING is refused before it
// is parsed (nesting.ts). Parsing is fastify's own JSON parser (a __proto__ or constructor key is
// refused, as before); a number the parser would change (1e999 → Infinity, 12345678901234567891 →
// 12345678901234567000) and a key given twice in one object (the parser keeps its last value: a
// history's tool_use.input {"s": "safe", "s": "rm -rf /"} was rendered as {"s": "rm -rf /"}) are
// refused naming where they stand (src/parser/exact-json.ts firstChange).
import { isUtf8 } from "node:buffer";
import type { FastifyInstance } from "fastify";
import { firstChange } from "../parser/exact-json.js";
import { ApiError } from "./errors.js";
import { refuseDeep } from "./nesting.js";
import { noteParsedBody } from "./well-formed.js";

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence. */
export function firstBadUtf8Byte(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    const n = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (n < 0) return i;
    // The second byte's range excludes overlong forms, surrogates and code points past U+10FFFF.
    const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k <= n; k++) {
      const d = b[i + k];
      if (d === undefined || d < (k === 1 ? lo : 0x80) || d > (k === 1 ? hi : 0xbf)) return i;
    }
    i += n + 1;
  }
  return -1;
}

/** Replaces fastify's application/json parser with one that first checks the bytes are UTF-8. */
export function parseJsonAsUtf8(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (req, body, done) => {
    const bytes = body as Buffer;
    if (!isUtf8(bytes)) {
      done(
        new ApiError(
          400,
          `the request body is not valid UTF-8 (its first bad byte is at offset ${firstBadUtf8Byte(bytes)}); send JSON encoded as UTF-8`,
          { code: "invalid_json" },
        ),
        undefined,
      );
      return;
    }
    const text = bytes.toString("utf8");
    try {
      refuseDeep(text); // before JSON.parse, which takes seconds on a body nested millions deep
    } catch (e) {
      done(e as Error, undefined);
      return;
    }
    parse(req, text, (err, body) => {
      if (err) return done(err, undefined);
      // JSON.parse has made 1e999 Infinity (null once written again), rounded long integers and kept
      // a key given twice at its last value: such a body would be served with values the client
      // did not send, or did not say which of two it meant.
      const changed = firstChange(text, body);
      if (changed === undefined) {
        noteParsedBody(body, text);
        return done(null, body);
      }
      done(
        changed.kind === "number"
          ? new ApiError(400, `${changed.reason}; send numbers a double holds as written`, {
              param: changed.where,
              code: "invalid_value",
            })
          : new ApiError(
              400,
              `the request body ${changed.reason}; JSON.parse would keep the last value, so which is meant is unknown; give each key once`,
              { param: changed.where || "body", code: "invalid_json" },
            ),
        undefined,
      );
    });
  });
}
