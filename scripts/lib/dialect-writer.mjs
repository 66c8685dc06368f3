// Outputs written as a dialect's definition (src/dialects/*.ts) spells them: calls, sections,
// thoughts, harmony messages. Plain ESM so vitest tests and node scripts (the fuzzer) share it.
// Arguments are wire texts, so numbers can be written as a model writes them (1e999,
// 9007199254740993): each is [key, json, raw?], `raw` being an XML dialect's raw text for a
// string (JSON dialects always write `json`).

/** Glue as text: fixed parts always, optional parts where `take()` says so (default: all). */
export function glueText(g, take = () => true) {
  return g.map((p) => (typeof p === "string" ? p : take() ? p.optional : "")).join("");
}

/** A string as Python's repr() writes it: single quotes, \\, ', newlines and other controls escaped. */
export function pyString(s) {
  return `'${s.replace(/[\\'\u0000-\u001f]/g, (c) => ({ "\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\", "'": "\\'" })[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`)}'`;
}

/** A JSON object from wire texts: `{"k": v, ...}`. */
export function objectText(args) {
  return `{${args.map(([k, json]) => `${JSON.stringify(k)}: ${json}`).join(", ")}}`;
}

/**
 * An opening call (spec.openingCalls): the object in wrapper `form` (compact, or indented as
 * Qwen2.5-Coder writes it when `take()` says so), its open's optional parts where `take()` says so.
 */
export function writeOpeningCall(spec, name, args, form, take = () => true) {
  const f = spec.call;
  const w = spec.openingCalls.wrappers[form];
  const object = take()
    ? `{\n  ${JSON.stringify(f.nameKey)}: ${JSON.stringify(name)},\n  ${JSON.stringify(f.argsKey)}: ${objectText(args)}\n}`
    : `{${JSON.stringify(f.nameKey)}: ${JSON.stringify(name)}, ${JSON.stringify(f.argsKey)}: ${objectText(args)}}`;
  return `${glueText(w.open, take)}${object}${w.close.length ? "\n" : ""}${glueText(w.close, take)}`;
}

/**
 * One call of `name`, from just before its trigger to its end. `index`: its place among the
 * answer's calls (Kimi writes it); `take`: which optional glue to write; `id`: a wire id where the
 * dialect carries one (9 letters or digits). Where the dialect's calls open the answer in
 * wrappers (spec.openingCalls, its trigger the object itself), `take()` picks the last wrapper
 * (a fence) or the first (bare); `form` picks a wrapper by its index, or "own" (the dialect's
 * own form, where it has a trigger besides).
 */
export function writeCall(spec, name, args, { index = 0, take = () => true, id = "abcdefghi", form } = {}) {
  const f = spec.call;
  if (spec.openingCalls && form !== "own" && (form !== undefined || spec.callOpensAnswer)) {
    const n = spec.openingCalls.wrappers.length;
    return writeOpeningCall(spec, name, args, form ?? (take() ? n - 1 : 0), take);
  }
  if (f.kind === "xml") {
    const pad = f.trimNewline && take() ? "\n" : "";
    const params = args.map(
      ([k, json, raw]) =>
        `${glueText(f.paramOpen, take)}${k}${f.paramNameClose}${glueText(f.valueOpen ?? [], take)}${pad}${raw ?? json}${pad}${f.valueClose}`,
    );
    return `${glueText(f.open, take)}${name}${f.nameClose ?? ""}${params.join("")}${glueText(f.close, take)}`;
  }
  if (f.kind === "envelope")
    return `{${JSON.stringify(f.nameKey)}: ${JSON.stringify(name)}, ${JSON.stringify(f.argsKey)}: ${objectText(args)}}`;
  if (f.kind === "json") {
    const wireId = f.id ? `, ${JSON.stringify(f.id.key)}: ${JSON.stringify(id)}` : "";
    return `${glueText(f.open, take)}{${JSON.stringify(f.nameKey)}: ${JSON.stringify(name)}, ${JSON.stringify(f.argsKey)}: ${objectText(args)}${wireId}}${glueText(f.close, take)}`;
  }
  if (f.kind === "python") {
    // Values as JSON texts (the dialect reads JSON as well as Python literals), or a string's Python repr.
    const value = ([, json]) => {
      if (!json.startsWith('"') || !take()) return json;
      try {
        return pyString(JSON.parse(json));
      } catch {
        return json;
      }
    };
    return `${name}${f.nameClose}${args.map((a) => `${a[0]}=${value(a)}`).join(", ")})`;
  }
  if (f.kind === "named") {
    const wireId = typeof f.id === "object" && take() ? `${f.id.open}${id}` : "";
    return `${glueText(f.open, take)}${name}${wireId}${f.nameClose}${f.index ? String(index) : ""}${glueText(f.argsOpen ?? [], take)}${objectText(args)}${glueText(f.close, take)}`;
  }
  // harmony: the recipient in the role header or after the channel, then the arguments and <|call|>.
  const type = take() ? glueText(f.contentType, take) : "";
  const head = take()
    ? `${glueText(f.open)}${name}${f.channel}${f.channels.calls}${type}`
    : `${f.channel}${f.channels.calls}${glueText(f.open)}${name}${type}`;
  return `${head}${f.message}${objectText(args)}${f.callEnd}`;
}

/**
 * A whole answer: an optional thought, text before, the calls (in the dialect's section where it
 * has one), text after. Harmony: a thought is an analysis message; the call message follows.
 * Calls that open the answer (qwen2.5-coder) stand one after another with `separator` between.
 */
export function writeOutput(spec, calls, { thought, before = "", after = "", separator = "\n" } = {}) {
  const f = spec.call;
  if (f.kind === "harmony") {
    const lead =
      thought === undefined
        ? ""
        : `${f.channel}${f.channels.reasoning}${f.message}${thought}${f.end}${glueText(f.messageStart)}`;
    const body = calls.length ? calls[0] : `${f.channel}${f.channels.final}${f.message}${before}${f.finalEnd}`;
    return `${lead}${body}${after}`;
  }
  if (f.kind === "envelope") {
    // One JSON object: the calls (one call under "tool_call" now and then), or the text as the response.
    const body =
      calls.length === 1 && before.length % 2 === 1
        ? `{${JSON.stringify(f.callKey)}: ${calls[0]}}`
        : calls.length
          ? `{${JSON.stringify(f.callsKey)}: [${calls.join(", ")}]}`
          : before
            ? `{${JSON.stringify(f.responseKey)}: ${JSON.stringify(before)}}`
            : "";
    return `${body}${after}`;
  }
  const r = spec.reasoning;
  const lead = thought !== undefined && r ? `${r.open}${thought}${r.close}` : "";
  const s = spec.section;
  let body;
  if (!calls.length) body = "";
  else if (s?.arrayOpen) body = `${s.open}${s.arrayOpen}${calls.join(", ")}${s.close}${s.end ?? ""}`;
  else if (s) body = `${s.open}${calls.map((c) => `${s.gap ?? ""}${c}`).join("")}${s.gap ?? ""}${s.close}`;
  else if (spec.openingCalls && spec.callOpensAnswer) body = calls.join(separator);
  else body = spec.callOpensAnswer ? calls[0] : calls.join("");
  return spec.callOpensAnswer && calls.length ? `${lead}${body}${after}` : `${lead}${before}${body}${after}`;
}
