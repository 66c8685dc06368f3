"""Runs one peer engine over the JSON Schema Test Suite's texts, called the way its users call it.

Reads JSON from stdin: {"engine": "llguidance" | "xgrammar", "tokenizer": path to tokenizer.json,
"groups": [{"schema": ..., "texts": [...]}]}; writes JSON to stdout: {"engine", "version",
"groups": [{"error": str} | {"accepts": [bool per text], "compileMs": float}]}.
A text is accepted when the engine's matcher takes all of it and may end there.
  - llguidance: LLMatcher.grammar_from_json_schema(schema) with its defaults, an LLMatcher on the
    tokenizer, the text's tokens (tokenize_str) consumed, then is_accepting().
  - xgrammar: Grammar.from_json_schema(json.dumps(schema)) with its defaults, then
    xgrammar.testing._is_grammar_accept_string (its own byte-level check; no tokenizer).
scripts/bench/bench-json-schema-suite.mjs runs it and judges the answers.
"""
import json
import sys
import time


def run_llguidance(req):
    import llguidance
    tok = llguidance.LLTokenizer(req["tokenizer"])
    out = []
    for g in req["groups"]:
        t0 = time.perf_counter()
        try:
            grammar = llguidance.LLMatcher.grammar_from_json_schema(g["schema"])
            m = llguidance.LLMatcher(tok, grammar, log_level=0)
        except Exception as e:  # a schema it cannot read
            out.append({"error": str(e)})
            continue
        if m.is_error():
            out.append({"error": m.get_error().splitlines()[0]})
            continue
        ms = (time.perf_counter() - t0) * 1000
        accepts = []
        error = None
        for text in g["texts"]:
            m = llguidance.LLMatcher(tok, grammar, log_level=0)
            ok = m.consume_tokens(tok.tokenize_str(text)) and m.is_accepting()
            # a refused text leaves "token … doesn't satisfy the grammar"; any other error is the schema's
            if m.is_error() and "doesn't satisfy the grammar" not in m.get_error():
                error = error or m.get_error().splitlines()[0]
            accepts.append(bool(ok))
        out.append({"accepts": accepts, "compileMs": ms} if error is None else {"error": error})
    return version("llguidance"), out


def run_xgrammar(req):
    import xgrammar
    from xgrammar.testing import _is_grammar_accept_string
    out = []
    for g in req["groups"]:
        t0 = time.perf_counter()
        try:
            grammar = xgrammar.Grammar.from_json_schema(json.dumps(g["schema"]))
        except Exception as e:
            out.append({"error": str(e).splitlines()[0] if str(e) else type(e).__name__})
            continue
        ms = (time.perf_counter() - t0) * 1000
        accepts = [bool(_is_grammar_accept_string(grammar, text)) for text in g["texts"]]
        out.append({"accepts": accepts, "compileMs": ms})
    return version("xgrammar"), out


def version(name):
    from importlib.metadata import version as v
    return v(name)


def main():
    req = json.load(sys.stdin)
    run = {"llguidance": run_llguidance, "xgrammar": run_xgrammar}[req["engine"]]
    ver, groups = run(req)
    json.dump({"engine": req["engine"], "version": ver, "groups": groups}, sys.stdout)


if __name__ == "__main__":
    main()
