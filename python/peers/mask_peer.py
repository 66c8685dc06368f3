"""One mask engine in its own process, driven by toolmask's Node side over stdin/stdout.

usage: python mask_peer.py ENGINE TOKENIZER_JSON_OR_VOCABULARY_FILE [STOP_ID,...]
ENGINE: llguidance | xgrammar | outlines-core | glrmask. One JSON request per line in, one JSON answer per
line out ({"error": "..."} when the request failed); the first line out says the engine is ready:
{"engine", "version", "vocab_size", "import_ms", "tokenizer_ms"} (or {"error"} when it cannot load).

Requests:
  {"op": "compile", "id": ID, "grammar": {"kind": "lark"|"ebnf"|"regex"|"json_schema", "text": S}, "repeat": N,
   "pause_ms": P}
      compiles N times (best time kept; each after P ms asleep when P is given: a driver that
      times its own engine after an idle pause gives the peer the same), then creates a matcher
      and fills the first mask:
      {"compile_ms", "first_mask_ms": compile + matcher + first mask of the best compile,
       "first_mask_cpu_ms": the process's CPU time (all its threads) over the same,
       "rss_growth_bytes": resident memory after the compiles (the last grammar and a matcher
       kept) less before them, "peak_rss_bytes": the process's peak resident memory so far}
      grammar "mode": "fast_masks" asks GLRMask for MaskStrategy.FAST_MASKS (engines.py); the
      answer's "mode": the strategy the engine used (null for an engine with one)
  {"op": "walk", "id": ID, "tokens": [...], "passes": N}
      N timed passes (after one untimed): reset, then per step fill the mask into a preallocated
      array (timed alone, perf_counter_ns) and accept the token; one mask more after the last
      token. {"samples_ns": [...], "refused": index of the first refused token or null}
  {"op": "masks", "id": ID, "tokens": [...], "path": P}
      writes each step's mask (steps = tokens + 1, or up to a refusal) to P as little-endian
      int32 words: {"steps", "refused"}
  {"op": "accepts", "id": ID, "walks": [[...], ...]}
      per walk, the index of the first token refused (null: all accepted) and whether the
      matcher is finished after the last one: {"refused": [...], "finished": [...]}
  {"op": "special"}: {"ids": tokens the engine matches only as themselves, never as text}
  {"op": "free", "id": ID}
"""

import json
import resource
import sys
import time
import traceback

from engines import ENGINES


def main():
    name, tokenizer = sys.argv[1], sys.argv[2]
    stops = [int(x) for x in sys.argv[3].split(",")] if len(sys.argv) > 3 and sys.argv[3] else []
    out = sys.stdout
    try:
        engine = ENGINES[name](tokenizer, stops)
    except Exception as e:  # noqa: BLE001 - reported to the driver
        out.write(json.dumps({"error": f"{name} cannot load: {type(e).__name__}: {e}"}) + "\n")
        out.flush()
        return
    out.write(json.dumps({"engine": name, "version": engine.version, "vocab_size": engine.vocab_size,
                          "import_ms": engine.import_ms, "tokenizer_ms": engine.tokenizer_ms}) + "\n")
    out.flush()
    grammars = {}
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            res = handle(engine, grammars, req)
        except Exception as e:  # noqa: BLE001 - reported to the driver
            res = {"error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc(limit=3)}
        out.write(json.dumps(res) + "\n")
        out.flush()


def handle(engine, grammars, req):
    op = req["op"]
    if op == "compile":
        best, compiled = None, None
        rss0 = rss_bytes()
        pause = req.get("pause_ms") or 0
        for _ in range(max(1, req.get("repeat", 1))):
            if pause > 0:
                time.sleep(pause / 1000)
            c0, t0 = time.process_time(), time.perf_counter()
            compiled = engine.compile(req["grammar"])
            m = engine.matcher(compiled)
            t1 = time.perf_counter()
            engine.fill(m, engine.new_mask())
            t2, c2 = time.perf_counter(), time.process_time()
            if best is None or t1 - t0 < best[0]:
                best = (t1 - t0, t2 - t0, c2 - c0)
        grammars[req["id"]] = (compiled, engine.matcher(compiled))
        return {"compile_ms": best[0] * 1000, "first_mask_ms": best[1] * 1000, "first_mask_cpu_ms": best[2] * 1000,
                "rss_growth_bytes": rss_bytes() - rss0, "peak_rss_bytes": peak_rss_bytes(), "mode": engine.mode}
    if op == "special":
        return {"ids": engine.special_ids()}
    if op == "free":
        grammars.pop(req["id"], None)
        return {}
    compiled, m = grammars[req["id"]]
    if op == "walk":
        res = walk(engine, m, req["tokens"], req["passes"], req.get("warmup", True))
    elif op == "masks":
        res = masks(engine, m, req["tokens"], req["path"])
    if op in ("walk", "masks"):
        grammars[req["id"]] = (compiled, engine.restart(compiled, m))
        return res
    if op == "accepts":
        refused, finished = [], []
        for tokens in req["walks"]:
            m = engine.restart(compiled, m)
            r = None
            for i, t in enumerate(tokens):
                if not engine.accept(m, t):
                    r = i
                    break
            refused.append(r)
            finished.append(r is None and bool(engine.finished(m)))
        grammars[req["id"]] = (compiled, engine.restart(compiled, m))
        return {"refused": refused, "finished": finished}
    raise ValueError(f"unknown op {op}")


def rss_bytes():
    """The process's resident memory now (Linux /proc/self/statm; 0 elsewhere)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * resource.getpagesize()
    except OSError:
        return 0


def peak_rss_bytes():
    """The process's peak resident memory so far (ru_maxrss: KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def walk(engine, m, tokens, passes, warmup=True):
    mask = engine.new_mask()
    fill, accept, clock = engine.fill, engine.accept, time.perf_counter_ns
    samples, refused = [], None
    for p in range(-1 if warmup else 0, passes):
        engine.reset(m)
        for i in range(len(tokens) + 1):
            t0 = clock()
            fill(m, mask)
            dt = clock() - t0
            if p >= 0:
                samples.append(dt)
            if i < len(tokens) and not accept(m, tokens[i]):
                refused = i
                break
        if refused is not None:
            break
    return {"samples_ns": samples, "refused": refused}


def masks(engine, m, tokens, path):
    mask = engine.new_mask()
    engine.reset(m)
    steps, refused = 0, None
    with open(path, "wb") as f:
        for i in range(len(tokens) + 1):
            mask.fill(0)
            engine.fill(m, mask)
            f.write(mask.astype("<i4").tobytes())
            steps += 1
            if i < len(tokens) and not engine.accept(m, tokens[i]):
                refused = i
                break
    return {"steps": steps, "refused": refused}


if __name__ == "__main__":
    main()
