"""bfcl-eval's own AST checker and tool conversion, driven by JSON lines (stdin → stdout).

One request per line, one answer per line, in order:
  {"op": "datadir"}                      → {"dataDir": ".../bfcl_eval/data", "version": "2026.3.23"}
  {"op": "check", "category": C, "functions": [BFCL docs], "calls": [{"name": N, "arguments": {...}}],
   "groundTruth": [...]}                 → {"valid": bool, "errorType": str|null, "error": [...]}
  {"op": "convert", "functions": [...]}  → {"tools": convert_to_tool(...) for an OpenAI-completions client}
  {"op": "truth", "groundTruth": [...], "pick": [{param: index}]}
                                         → {"calls": [{"name", "arguments"}]}: each ground-truth call
                                            with the accepted value `pick` names for each parameter
                                            (parameters it does not name left out), arguments as
                                            JSON text (Python's json.dumps: 25.0 stays 25.0)
  {"op": "contentCalls", "text": T}     → {"calls": [{"name", "arguments"}]}: the JSON objects
                                            {"name": …, "arguments": {…}} written in plain text (a
                                            model that answers in JSON without its dialect's call
                                            markers), each read with json's raw_decode
Arguments reach "check" as JSON text, as the model wrote them, and are read with json.loads as
bfcl-eval's OpenAI handler reads them (1.0 stays a float, 1 an int: the checker tells them apart).

"check" follows bfcl_eval/eval_checker/eval_runner.py: for irrelevance an answer is right when it
holds no call (is_empty_output); for the other categories the calls, as an OpenAI function-calling
handler decodes them ([{name: arguments}]), go through is_function_calling_format_output and then
ast_checker(). Names arrive as the OpenAI tools carry them ("." written "_"); the checker maps
the expected names the same way when its model config says underscore_to_dot, as it does for
OpenAI-style models.

bfcl_eval.constants.model_config imports every inference client bfcl-eval supports (openai,
anthropic, vllm ...), and ast_checker reads only MODEL_CONFIG_MAPPING[model].underscore_to_dot from
it, so that one module is replaced by a mapping with one entry, MODEL below; the checker's code is
bfcl-eval's as installed.
"""
import importlib.metadata
import json
import os
import sys
import tempfile
import types

# eval_config.py creates result/, score/ and .file_locks/ under BFCL_PROJECT_ROOT on import.
os.environ.setdefault("BFCL_PROJECT_ROOT", os.path.join(tempfile.gettempdir(), "toolmask-bfcl"))

MODEL = "toolmask"
_config = types.ModuleType("bfcl_eval.constants.model_config")
_config.MODEL_CONFIG_MAPPING = {MODEL: types.SimpleNamespace(underscore_to_dot=True)}
sys.modules["bfcl_eval.constants.model_config"] = _config

import bfcl_eval  # noqa: E402
from bfcl_eval.constants.enums import Language, ModelStyle  # noqa: E402
from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI  # noqa: E402
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker  # noqa: E402
from bfcl_eval.model_handler.utils import convert_to_tool  # noqa: E402
from bfcl_eval.utils import (  # noqa: E402
    _func_doc_language_specific_pre_processing,
    is_empty_output,
    is_function_calling_format_output,
)

CHECKER_CATEGORY = {"simple": "simple_python", "multiple": "multiple", "parallel": "parallel",
                    "parallel_multiple": "parallel_multiple", "irrelevance": "irrelevance"}


def check(req):
    category = CHECKER_CATEGORY[req["category"]]
    try:
        decoded = [{c["name"]: json.loads(c["arguments"])} for c in req["calls"]]
    except ValueError as e:
        decoded = None
        decode_error = str(e)
    if decoded is None:
        if category == "irrelevance":
            return {"valid": True, "errorType": None, "error": []}
        return {"valid": False, "errorType": "ast_decoder:decoder_failed", "error": [f"Invalid syntax. Failed to decode AST. {decode_error}"]}
    if category == "irrelevance":
        if is_empty_output(decoded):
            return {"valid": True, "errorType": None, "error": []}
        return {"valid": False, "errorType": "irrelevance_error:decoder_success",
                "error": ["Valid syntax. Successfully decode AST when it should not."]}
    if not is_function_calling_format_output(decoded):
        return {"valid": False, "errorType": "ast_decoder:decoder_wrong_output_format", "error": ["Did not output in the specified format."]}
    r = ast_checker(req["functions"], decoded, req["groundTruth"], Language.PYTHON, category, MODEL)
    return {"valid": bool(r["valid"]), "errorType": r.get("error_type") if not r["valid"] else None,
            "error": [e if isinstance(e, str) else json.dumps(e, default=repr) for e in r.get("error", [])]}


def convert(req):
    functions = _func_doc_language_specific_pre_processing(req["functions"], "simple_python")
    return {"tools": convert_to_tool(functions, GORILLA_TO_OPENAPI, ModelStyle.OPENAI_COMPLETIONS)}


def instance(value):
    """A ground-truth value made concrete: for a dict parameter the ground truth gives each key's
    accepted values (dict_checker), for a list of dicts each dict so (list_dict_checker)."""
    if isinstance(value, dict):
        return {k: next(v for v in vs if v != "") for k, vs in value.items() if any(v != "" for v in vs)}
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [instance(v) for v in value]
    return value


def truth(req):
    calls = []
    for i, call in enumerate(req["groundTruth"]):
        [(name, params)] = call.items()
        pick = req["pick"][i]
        args = {k: instance(params[k][j]) for k, j in pick.items()}
        calls.append({"name": name.replace(".", "_"), "arguments": json.dumps(args)})
    return {"calls": calls}


def content_calls(req):
    text, decoder, calls, i = req["text"], json.JSONDecoder(), [], 0
    while (i := text.find("{", i)) >= 0:
        try:
            obj, end = decoder.raw_decode(text, i)
        except ValueError:
            i += 1
            continue
        if isinstance(obj, dict) and isinstance(obj.get("name"), str) and isinstance(obj.get("arguments"), dict):
            calls.append({"name": obj["name"], "arguments": json.dumps(obj["arguments"])})
        i = end
    return {"calls": calls}


def answer(req):
    op = req.get("op")
    if op == "datadir":
        return {"dataDir": os.path.join(os.path.dirname(bfcl_eval.__file__), "data"), "version": importlib.metadata.version("bfcl-eval")}
    if op == "check":
        return check(req)
    if op == "convert":
        return convert(req)
    if op == "truth":
        return truth(req)
    if op == "contentCalls":
        return content_calls(req)
    return {"failed": f"unknown op {op!r}"}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            out = answer(json.loads(line))
        except Exception as e:  # the answer says what broke; the other requests still get theirs
            out = {"failed": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
