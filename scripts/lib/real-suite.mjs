// The real-model suite on one loaded model: each case of scripts/lib/real-cases.mjs decoded
// greedily, masked and unmasked, no logit bias; every answer judged by real-answers.mjs (ajv) and
// replayed through the matcher of its request's grammar (src/bench/overconstraint.ts). Plain ESM:
// `lib` is toolmask's own parts — src/ in test/model-real/, dist/ in scripts/bench/bench-models.mjs —
// as { generate, getDialect, triggerOf, replayThroughMask, endedByModel, escapeRegex }.
import { answerVerdict, cutProblem } from "./real-answers.mjs";

/** The generate() options of a case, masked or not. */
export function caseOptions(c, { maxTokens, dialect, mask }) {
  return {
    messages: [{ role: "user", content: c.prompt }],
    tools: c.tools,
    toolChoice: c.toolChoice,
    parallelToolCalls: c.parallel,
    temperature: 0,
    maxTokens,
    mask,
    ...(dialect ? { dialect } : {}),
  };
}

/** The dialect's call-opening text where it can be counted in free text (not a bare "{"). */
function countableTrigger(lib, dialect) {
  let t;
  try {
    t = lib.triggerOf(dialect);
  } catch {
    return undefined;
  } // a dialect whose calls open with no fixed string
  return t === "{" ? undefined : t;
}

/**
 * How a call's name follows the dialect's opening, as the verdict reads it (namesUndeclared): the
 * opening glue after the trigger, for JSON calls the object's head up to the name's quote (a bare
 * call's "{" is its opening). Calls in
 * a section (the opening is the section's) and names without a close get none.
 */
function nameForm(lib, spec) {
  const f = spec.call;
  if (spec.section || !f.open) return undefined;
  const glue = f.open
    .slice(f.open.findIndex((p) => typeof p === "string") + 1)
    .map((p) => (typeof p === "string" ? lib.escapeRegex(p) : `(?:${lib.escapeRegex(p.optional)})?`))
    .join("");
  const ws = "[ \\t\\n\\r]*";
  // A bare call's opening is its "{" itself.
  if (f.kind === "json")
    return {
      lead: `${glue}${spec.callOpensAnswer ? "" : "\\{"}${ws}${lib.escapeRegex(JSON.stringify(f.nameKey))}${ws}:${ws}"`,
      closes: ['"', "\\"],
    };
  if ((f.kind === "xml" && f.nameClose !== null) || f.kind === "named")
    return { lead: glue, closes: [f.nameClose, ...(typeof f.id === "object" ? [f.id.open] : [])] };
  return undefined;
}

/**
 * Where the dialect opens a call, for the verdict: its trigger anywhere, or a bare call's "{" at the
 * start (`lib`: { escapeRegex }). Where calls open the answer bare or in a fence (openingCalls), a
 * fence's open may come before the "{" (`before`), and an object whose head is no call's (another
 * key first) is text (`headDecides`): only a head naming a declared tool opens a call.
 */
export function callOpening(lib, spec, trigger) {
  const name = spec ? nameForm(lib, spec) : undefined;
  const withName = name ? { name } : {};
  if (spec?.openingCalls && spec.call.kind === "json")
    return { text: "{", atStart: true, before: "(?:```(?:json)?\\n[ \\t\\n\\r]*)?", headDecides: true, ...withName };
  if (spec?.callOpensAnswer && spec.call.kind === "json") return { text: "{", atStart: true, ...withName };
  return trigger === undefined || spec?.call.kind === "envelope"
    ? undefined
    : { text: trigger, atStart: false, ...withName };
}

/** Index of the first token where `a` and `b` differ (-1: the same). */
export function firstDifference(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

async function runMode(lib, model, c, settings, mask, judge) {
  const options = caseOptions(c, { ...settings, mask });
  const r = await lib.generate(model, options);
  const endedByModel = lib.endedByModel(model, r.tokens);
  const answer = {
    finishReason: r.finishReason,
    toolCalls: r.message.tool_calls ?? [],
    incomplete: r.incomplete,
    completionTokens: r.usage.completion_tokens,
    endedByModel,
    text: r.text,
    content: r.message.content,
  };
  const verdict = answerVerdict(answer, {
    tools: c.tools,
    toolChoice: c.toolChoice,
    parallel: c.parallel,
    maxTokens: settings.maxTokens,
    ...judge,
  });
  const replay = await lib.replayThroughMask(model, options, r.tokens);
  return {
    mode: mask ? "masked" : "unmasked",
    finishReason: r.finishReason,
    completionTokens: r.usage.completion_tokens,
    promptTokens: r.usage.prompt_tokens,
    endedByModel,
    ...verdict,
    toolCalls: answer.toolCalls.map((t) => ({ name: t.function.name, arguments: t.function.arguments })),
    incomplete: r.incomplete.map((i) => ({ kind: i.kind, name: i.name, reason: i.reason })),
    replay: { tokens: replay.tokens, accepted: replay.accepted, refused: replay.refused, complete: replay.complete },
    tokensPerSecond: r.timings.tokensPerSecond,
    maskMicrosPerToken: r.timings.maskMicrosPerToken,
    promptMillis: r.timings.promptMillis,
    decodeMillis: r.timings.decodeMillis,
    text: r.text,
    tokens: r.tokens,
  };
}

/**
 * Runs `cases` on `model` (settings: { maxTokens, dialect, concurrency }): for each case the
 * masked and the unmasked answer, decoded side by side (`concurrency` generations at once, as
 * sequences of the model's context). Masked answers must show no problem (problems listed in
 * `maskProblems`); unmasked ones are only measured. Over-constraint: every valid unmasked answer
 * replayed through its request's grammar (a refusal is listed in `refusals`). Greedy parity:
 * each valid unmasked answer against the masked one; a difference is decoded again alone, both
 * ways, to tell a mask effect from batch numerics.
 */
export async function runSuite(lib, model, cases, settings) {
  const concurrency = Math.max(2, settings.concurrency ?? 4);
  const dialectName = settings.dialect ?? model.dialect;
  const spec = lib.getDialect(dialectName);
  const trigger = countableTrigger(lib, spec);
  // What the verdict needs of the dialect: the call-opening text, and whether calls stand alone (generic).
  const judge = { trigger, callsAlone: spec?.call.kind === "envelope", opening: callOpening(lib, spec, trigger) };
  const records = [];
  for (let i = 0; i < cases.length; i += concurrency / 2) {
    const batch = cases.slice(i, i + concurrency / 2);
    const done = await Promise.all(
      batch.map(async (c) => {
        const [masked, unmasked] = await Promise.all([
          runMode(lib, model, c, settings, true, judge),
          runMode(lib, model, c, settings, false, judge),
        ]);
        return {
          id: c.id,
          prompt: c.prompt,
          choice: c.choice,
          parallel: c.parallel,
          tools: c.tools.length,
          masked,
          unmasked,
        };
      }),
    );
    records.push(...done);
    settings.onCase?.(records.length, cases.length, records);
  }
  const byId = new Map(cases.map((c) => [c.id, c]));
  const maskProblems = [],
    refusals = [],
    differences = [];
  for (const r of records) {
    const m = r.masked,
      u = r.unmasked;
    for (const p of m.problems) maskProblems.push({ id: r.id, problem: p, text: m.text });
    if (m.cut) {
      const p = cutProblem(
        { toolCalls: m.toolCalls, incomplete: m.incomplete, text: m.text },
        m.replay.complete,
        trigger,
      );
      if (p) maskProblems.push({ id: r.id, problem: p, text: m.text });
    }
    if (m.replay.refused)
      maskProblems.push({
        id: r.id,
        problem: `the matcher refuses the masked answer's own token ${m.replay.refused.index} (${JSON.stringify(m.replay.refused.piece)})`,
        text: m.text,
      });
    if (u.valid && u.replay.refused) refusals.push({ id: r.id, refused: u.replay.refused, text: u.text });
    if (u.valid) {
      const at = firstDifference(u.tokens, m.tokens);
      if (at >= 0)
        differences.push({
          id: r.id,
          at,
          unmaskedPiece: pieceAt(model, u.tokens, at),
          maskedPiece: pieceAt(model, m.tokens, at),
          unmaskedText: u.text,
          maskedText: m.text,
          maskedValid: m.valid,
        });
    }
  }
  // Each difference decoded again alone (one sequence at a time), masked and unmasked.
  for (const d of differences) {
    const c = byId.get(d.id);
    const soloMasked = await lib.generate(model, caseOptions(c, { ...settings, mask: true }));
    const soloUnmasked = await lib.generate(model, caseOptions(c, { ...settings, mask: false }));
    d.solo = {
      same: firstDifference(soloMasked.tokens, soloUnmasked.tokens) < 0,
      maskedText: soloMasked.text,
      unmaskedText: soloUnmasked.text,
      maskedAsBatched: firstDifference(soloMasked.tokens, records.find((r) => r.id === d.id).masked.tokens) < 0,
    };
  }
  return {
    dialect: dialectName,
    records,
    maskProblems,
    refusals,
    differences,
    summary: summarize(records, differences),
  };
}

function pieceAt(model, tokens, i) {
  return i < tokens.length ? model.vocabulary.piece(tokens[i]) : "(end)";
}

function modeSummary(rs) {
  const finished = rs.filter((r) => !r.cut);
  const tps = rs
    .map((r) => r.tokensPerSecond)
    .filter((x) => x > 0)
    .sort((a, b) => a - b);
  return {
    answers: rs.length,
    finished: finished.length,
    valid: rs.filter((r) => r.valid).length,
    validWithCalls: rs.filter((r) => r.valid && r.calls > 0).length,
    cut: rs.filter((r) => r.cut).length,
    cutReportedLength: rs.filter((r) => r.cut && r.finishReason === "length").length,
    withProblems: finished.filter((r) => r.problems.length > 0).length,
    calls: rs.reduce((s, r) => s + r.calls, 0),
    tokens: rs.reduce((s, r) => s + r.completionTokens, 0),
    medianTokensPerSecond: tps.length ? tps[Math.floor(tps.length / 2)] : 0,
  };
}

/** Counts per mode, per tool choice, the replay and greedy parity figures. */
export function summarize(records, differences) {
  const choices = [...new Set(records.map((r) => r.choice))];
  const unmaskedValid = records.filter((r) => r.unmasked.valid);
  return {
    cases: records.length,
    masked: modeSummary(records.map((r) => r.masked)),
    unmasked: modeSummary(records.map((r) => r.unmasked)),
    byChoice: Object.fromEntries(
      choices.map((ch) => {
        const rs = records.filter((r) => r.choice === ch);
        return [
          ch,
          {
            cases: rs.length,
            maskedValid: rs.filter((r) => r.masked.valid).length,
            maskedCut: rs.filter((r) => r.masked.cut).length,
            unmaskedValid: rs.filter((r) => r.unmasked.valid).length,
          },
        ];
      }),
    ),
    replay: {
      answers: unmaskedValid.length,
      withCalls: unmaskedValid.filter((r) => r.unmasked.calls > 0).length,
      tokens: unmaskedValid.reduce((s, r) => s + r.unmasked.replay.tokens, 0),
      refusals: unmaskedValid.filter((r) => r.unmasked.replay.refused).length,
    },
    greedy: {
      unmaskedValid: unmaskedValid.length,
      same: unmaskedValid.length - differences.length,
      different: differences.length,
      differentSameWhenAlone: differences.filter((d) => d.solo?.same).length,
    },
  };
}

/** A few lines for a person: per mode, replay, parity, and each difference. */
export function formatSummary(name, result) {
  const s = result.summary;
  const line = (label, m) =>
    `  ${label.padEnd(9)} valid ${m.valid}/${m.answers} (with calls ${m.validWithCalls}), finished ${m.finished}, cut ${m.cut} (finish length ${m.cutReportedLength}), finished with problems ${m.withProblems}, ${m.tokens} tokens, median ${m.medianTokensPerSecond.toFixed(1)} tok/s`;
  const out = [
    `${name} (${result.dialect}): ${s.cases} cases, greedy`,
    line("masked", s.masked),
    line("unmasked", s.unmasked),
  ];
  out.push(
    `  by choice: ${Object.entries(s.byChoice)
      .map(
        ([k, v]) =>
          `${k} masked ${v.maskedValid}/${v.cases} valid (${v.maskedCut} cut), unmasked ${v.unmaskedValid}/${v.cases}`,
      )
      .join("; ")}`,
  );
  out.push(
    `  over-constraint: ${s.replay.answers} valid unmasked answers (${s.replay.withCalls} with calls, ${s.replay.tokens} tokens) replayed, ${s.replay.refusals} refused`,
  );
  out.push(
    `  greedy parity: masked = unmasked on ${s.greedy.same}/${s.greedy.unmaskedValid} valid unmasked answers; ${s.greedy.different} differ (${s.greedy.differentSameWhenAlone} of them the same when decoded alone)`,
  );
  for (const d of result.differences)
    out.push(
      `    #${d.id} differs at token ${d.at}: unmasked ${JSON.stringify(d.unmaskedPiece)} masked ${JSON.stringify(d.maskedPiece)}; alone: ${d.solo?.same ? "same" : "differs"}; unmasked ${JSON.stringify(d.unmaskedText.slice(0, 100))} masked ${JSON.stringify(d.maskedText.slice(0, 100))}`,
    );
  for (const p of result.maskProblems) out.push(`    MASKED PROBLEM #${p.id}: ${p.problem}`);
  for (const r of result.refusals)
    out.push(
      `    REFUSED #${r.id} at token ${r.refused.index} ${JSON.stringify(r.refused.piece)} after ${JSON.stringify(r.refused.textBefore.slice(-80))}`,
    );
  return out.join("\n");
}
