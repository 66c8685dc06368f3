"""The native mask engines toolmask is measured against, each called the way its users call it.

Every engine works on one Hugging Face tokenizer.json (or a token-bytes vocabulary file, for a
model known only by its GGUF: read_vocab_file) and fills a preallocated int32 bitmask of
ceil(V/32) words (bit set = token allowed), the layout toolmask's fillNextTokenBitmask writes:

- llguidance: LLTokenizer(tokenizer.json), LLMatcher(tokenizer, lark), and
  llguidance.numpy.fill_next_token_bitmask (LLMatcher.unsafe_compute_mask_ptr into the array);
- XGrammar: TokenizerInfo(encoded vocabulary, BYTE_LEVEL), GrammarCompiler(cache off),
  compile_grammar(ebnf), GrammarMatcher.fill_next_token_bitmask(array) (DLPack);
- outlines-core: Vocabulary(eos, token bytes -> ids), Index(regex, vocabulary), Guide.write_mask_into;
- GLRMask: Vocab.from_id_to_bytes(text tokens), Grammar.from_json_schema / from_lark (toLark's
  output through glrmask_lark.py), compile(vocab) (mask_strategy FAST_MASKS when asked),
  ConstraintState.fill_mask(array row).

An engine is imported only when asked for, so a missing package is reported for that engine alone.
"""

import json
import time
from importlib.metadata import version

import numpy as np


def read_vocab_file(path):
    """A token-bytes vocabulary (toolmask's vocabulary file, written from a GGUF by
    src/bench/native-peers.ts): {"toolmask_vocabulary": 1, "tokens": [hex bytes per id],
    "special": [ids matched only as themselves]}; None for any other file (a tokenizer.json)."""
    with open(path, encoding="utf-8") as f:
        j = json.load(f)
    if not isinstance(j, dict) or j.get("toolmask_vocabulary") != 1:
        return None
    return [bytes.fromhex(t) for t in j["tokens"]], set(j["special"])


def read_special_ids(path):
    """The ids of the tokens that are not text: a vocabulary file's "special", or a
    tokenizer.json's added tokens marked special."""
    v = read_vocab_file(path)
    if v is not None:
        return v[1]
    with open(path, encoding="utf-8") as f:
        j = json.load(f)
    return {t["id"] for t in j.get("added_tokens", []) if t.get("special")}


def _byte_encoder():
    return {b: c for c, b in _byte_decoder().items()}


def read_tokenizer(path):
    """(encoded pieces in id order, padded with "", added-token ids) from a tokenizer.json or a
    vocabulary file (the pieces then byte-level encoded from the token bytes)."""
    v = read_vocab_file(path)
    if v is not None:
        enc = _byte_encoder()
        tokens, special = v
        pieces = [t.decode("utf-8", "replace") if i in special else "".join(enc[b] for b in t) for i, t in enumerate(tokens)]
        return pieces, special
    with open(path, encoding="utf-8") as f:
        j = json.load(f)
    pieces = {}
    for piece, i in j["model"]["vocab"].items():
        pieces[i] = piece
    added = set()
    for t in j.get("added_tokens", []):
        pieces[t["id"]] = t["content"]
        added.add(t["id"])
    n = max(pieces) + 1
    return [pieces.get(i, "") for i in range(n)], added


def _byte_decoder():
    """GPT-2's byte-level alphabet: piece character -> byte."""
    bs = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    cs = list(bs)
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


class Engine:
    name = ""
    package = ""
    mode = None
    """The engine's mode for the last compile where it has more than one (GLRMask's mask strategy)."""

    def __init__(self, tokenizer_path, stop_ids):
        self.stop_ids = list(stop_ids)
        t0 = time.perf_counter()
        self.load()
        t1 = time.perf_counter()
        self.vocab_size = self.load_tokenizer(tokenizer_path)
        self.import_ms = (t1 - t0) * 1000
        self.tokenizer_ms = (time.perf_counter() - t1) * 1000
        self.words = (self.vocab_size + 31) // 32
        self.version = version(self.package)

    def new_mask(self):
        return np.zeros((1, self.words), dtype=np.int32)

    def special_ids(self):
        """Tokens the engine never matches as text (only as themselves)."""
        return []

    def restart(self, compiled, m):
        """The matcher back at the start (a new one where a refusal left it unusable)."""
        self.reset(m)
        return m


class LLGuidance(Engine):
    name = "llguidance"
    package = "llguidance"

    def load(self):
        import llguidance
        import llguidance.numpy

        self.llg = llguidance
        self.fill_np = llguidance.numpy.fill_next_token_bitmask

    def load_tokenizer(self, path):
        v = read_vocab_file(path)
        if v is None:
            self.tok = self.llg.LLTokenizer(path, eos_token=self.stop_ids or None)
        else:
            self.tok = self.llg.LLTokenizer(self.llg.TokenizerWrapper(_BytesTokenizer(*v, self.stop_ids)), eos_token=self.stop_ids or None)
        return self.tok.vocab_size

    def compile(self, grammar):
        if grammar["kind"] == "lark":
            text = grammar["text"]
        elif grammar["kind"] == "json_schema":
            text = self.llg.LLMatcher.grammar_from_json_schema(grammar["text"])
        else:
            raise ValueError(f"llguidance: no grammar kind {grammar['kind']}")
        # The grammar is compiled by LLMatcher, as its users make one: a grammar error puts the
        # matcher in its error state, which matcher() raises with get_error() (the message
        # validate_grammar_with_warnings gives). Validating here as well compiled every grammar
        # twice: on the client tool corpus's call-object schemas validation took 1.5-29 ms and the
        # matcher 2-38 ms (2 shared cores).
        return text

    def matcher(self, compiled):
        m = self.llg.LLMatcher(self.tok, compiled, log_level=0)
        if m.is_error():
            raise ValueError(m.get_error())
        return m

    def fill(self, m, mask):
        self.fill_np(m, mask, 0)

    def accept(self, m, token):
        return m.consume_token(token) and not m.is_error()

    def reset(self, m):
        m.reset()

    def restart(self, compiled, m):
        # A refused token leaves an LLMatcher in its error state for good (reset keeps it).
        if m.is_error():
            return self.matcher(compiled)
        m.reset()
        return m

    def special_ids(self):
        return [i for i in range(self.vocab_size) if self.tok.is_special_token(i)]

    def finished(self, m):
        return m.is_stopped() or m.is_accepting()


class _BytesTokenizer:
    """What llguidance's TokenizerWrapper reads, from token bytes: special tokens as 0xFF + their
    text (llguidance's convention, as its llamacpp.py builds them), and a greedy longest-match
    tokenizer for the text llguidance itself tokenizes (masks do not depend on it)."""

    def __init__(self, tokens, special, stop_ids):
        self.tokens = [b"\xff" + t if i in special else t for i, t in enumerate(tokens)]
        self.special_token_ids = sorted(special)
        self.eos_token_id = stop_ids[0] if stop_ids else (self.special_token_ids[0] if self.special_token_ids else 0)
        self.bos_token_id = None
        self._ids = {}
        for i, t in enumerate(tokens):
            if i not in special and t:
                self._ids.setdefault(t, i)
        self._longest = max((len(t) for t in self._ids), default=1)

    def __call__(self, data):
        b = data if isinstance(data, bytes) else data.encode("utf-8")
        out, i = [], 0
        while i < len(b):
            for n in range(min(self._longest, len(b) - i), 0, -1):
                t = self._ids.get(b[i:i + n])
                if t is not None:
                    out.append(t)
                    i += n
                    break
            else:
                raise ValueError(f"no token for byte {b[i]:#x}")
        return out


class XGrammar(Engine):
    name = "xgrammar"
    package = "xgrammar"

    def load(self):
        import xgrammar

        self.xgr = xgrammar

    def load_tokenizer(self, path):
        pieces, _ = read_tokenizer(path)
        self.info = self.xgr.TokenizerInfo(pieces, vocab_type=self.xgr.VocabType.BYTE_LEVEL, vocab_size=len(pieces),
                                           stop_token_ids=self.stop_ids or None, add_prefix_space=False)
        self.compiler = self.xgr.GrammarCompiler(self.info, cache_enabled=False)
        return len(pieces)

    def compile(self, grammar):
        if grammar["kind"] == "ebnf":
            return self.compiler.compile_grammar(grammar["text"], root_rule_name="root")
        if grammar["kind"] == "json_schema":
            return self.compiler.compile_json_schema(grammar["text"], any_whitespace=False)
        raise ValueError(f"xgrammar: no grammar kind {grammar['kind']}")

    def matcher(self, compiled):
        return self.xgr.GrammarMatcher(compiled)

    def fill(self, m, mask):
        m.fill_next_token_bitmask(mask, 0)

    def accept(self, m, token):
        return m.accept_token(token)

    def reset(self, m):
        m.reset()

    def finished(self, m):
        return m.is_terminated()


class OutlinesCore(Engine):
    name = "outlines-core"
    package = "outlines-core"

    def load(self):
        import outlines_core

        self.oc = outlines_core

    def load_tokenizer(self, path):
        pieces, added = read_tokenizer(path)
        dec = _byte_decoder()
        eos = self.stop_ids[0] if self.stop_ids else None
        by_bytes = {}
        for i, p in enumerate(pieces):
            if p == "" or i in self.stop_ids:
                continue
            b = p.encode("utf-8") if i in added else bytes(dec[c] for c in p)
            by_bytes.setdefault(b, []).append(i)
        self.vocab = self.oc.Vocabulary(eos, by_bytes)
        return len(pieces)

    def compile(self, grammar):
        if grammar["kind"] == "regex":
            regex = grammar["text"]
        elif grammar["kind"] == "json_schema":
            regex = self.oc.json_schema.build_regex_from_schema(grammar["text"])
        else:
            raise ValueError(f"outlines-core takes a regex or a JSON schema, not {grammar['kind']}")
        return self.oc.Index(regex, self.vocab)

    def matcher(self, compiled):
        return self.oc.Guide(compiled)

    def fill(self, m, mask):
        m.write_mask_into(mask.ctypes.data, mask.size, 4)

    def accept(self, m, token):
        try:
            m.advance(token)
            return True
        except ValueError:
            return False

    def reset(self, m):
        m.reset()

    def finished(self, m):
        return m.is_finished()


class _GlrState:
    """A GLRMask constraint and its current state: the matcher the driver resets in place."""

    def __init__(self, constraint):
        self.constraint = constraint
        self.state = constraint.start()


class GLRMask(Engine):
    name = "glrmask"
    package = "glrmask"

    def load(self):
        import glrmask

        self.glr = glrmask

    def load_tokenizer(self, path):
        pieces, added = read_tokenizer(path)
        special = read_special_ids(path)
        dec = _byte_decoder()
        self.text = {}
        for i, p in enumerate(pieces):
            if p == "" or i in special or i in self.stop_ids:
                continue  # tokens that are not text never match it
            # an added token that is not special (Qwen3's <tool_call>) is its text, as for the
            # other engines and toolmask
            self.text[i] = p.encode("utf-8") if i in added else bytes(dec[c] for c in p)
        self.vocab = self.glr.Vocab.from_id_to_bytes(self.text)
        return len(pieces)

    def compile(self, grammar):
        if grammar["kind"] == "json_schema":
            g = self.glr.Grammar.from_json_schema(grammar["text"])
        elif grammar["kind"] == "lark":
            from glrmask_lark import to_glrmask_lark

            g = self.glr.Grammar.from_lark(to_glrmask_lark(grammar["text"], self._token_text))
        else:
            raise ValueError(f"glrmask: no grammar kind {grammar['kind']}")
        # "fast_masks": MaskStrategy.FAST_MASKS (a parser DWA for the whole grammar: "Slowest to
        # compile, with the fastest masks", its documentation), and where GLRMask refuses that
        # strategy for the grammar (it raises "unsupported by the chosen mask strategy", e.g. on a
        # right-recursive rule), its default; otherwise its default, AUTO (a parser DWA unless
        # that would be too large, then a token trie). self.mode: the strategy the last compile used.
        if grammar.get("mode") == "fast_masks":
            try:
                c = g.compile(self.vocab, mask_strategy=self.glr.MaskStrategy.FAST_MASKS)
                self.mode = "FAST_MASKS"
                return c
            except Exception as e:  # noqa: BLE001 - GLRMask's own exception type; re-raised unless the refusal
                if "unsupported by the chosen mask strategy" not in str(e):
                    raise
                why = str(e).splitlines()[-1].split(". ")[0]
                self.mode = f"AUTO (FAST_MASKS refused: {why})"
                return g.compile(self.vocab)
        self.mode = "AUTO"
        return g.compile(self.vocab)

    def _token_text(self, i):
        b = self.text.get(i)
        return None if b is None else b.decode("utf-8", "replace")

    def matcher(self, compiled):
        return _GlrState(compiled)

    def fill(self, m, mask):
        m.state.fill_mask(mask[0])

    def accept(self, m, token):
        return m.state.commit_token(token)

    def reset(self, m):
        m.state = m.constraint.start()

    def finished(self, m):
        return m.state.is_accepting()


ENGINES = {e.name: e for e in (LLGuidance, XGrammar, OutlinesCore, GLRMask)}
