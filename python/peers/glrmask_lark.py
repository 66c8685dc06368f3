"""toolmask's Lark export (toLark: llguidance's dialect of Lark) as the Lark GLRMask 0.5.0 reads.

toLark writes three things GLRMask's Lark reader refuses (each measured: `Grammar.from_lark`
raised on it): rule names with "-" (`perm-1-i0`), a repeat count after an item (`/[0-9]/{3}`,
`x{2,5}`, `x{2,}`) and llguidance's token references `<[151657]>`. Here a name's "-" becomes "_"
(an error where that makes two names one), a count becomes Lark's `~ n` / `~ n..m` (`{n,}`: the
item n times, then `item*`), and a token reference becomes the token's text as a string (an
error for a token that is not text). Strings and regexes are copied as they are (GLRMask reads
`\\u{..}` in classes).
"""

import json
import re

_TOKEN = re.compile(
    r'(?P<str>"(?:[^"\\]|\\.)*")'
    r"|(?P<re>/(?:[^/\\\n]|\\.)+/)"
    r"|(?P<tok><\[(?P<id>\d+)\]>)"
    r"|(?P<rep>\{(?P<lo>\d+)(?P<comma>,(?P<hi>\d*))?\})"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_\-]*)"
    r"|(?P<ws>\s+)"
    r"|(?P<punct>[():|*+?])"
)


def to_glrmask_lark(text, token_text):
    """`text` (toLark's output) in GLRMask's Lark. `token_text(id)`: the token's text, or None
    when the token is not text to the engine."""
    out = []  # output pieces; atoms are recorded by index so a count can repeat one
    starts = []  # index in `out` of each open "("
    last_atom = None  # (start index, end index) in `out` of the item a count applies to
    renamed = {}
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ValueError(f"glrmask lark: cannot read {text[pos:pos + 40]!r}")
        pos = m.end()
        kind = next(k for k in ("str", "re", "tok", "rep", "name", "ws", "punct") if m.group(k) is not None)
        if kind == "ws":
            out.append(m.group(0))
            continue
        if kind == "rep":
            if last_atom is None:
                raise ValueError("glrmask lark: a count with no item before it")
            a, b = last_atom
            atom = "".join(out[a:b])
            lo, hi = int(m.group("lo")), m.group("hi")
            if m.group("comma") is None:
                out.append(f" ~ {lo}")
            elif hi == "":
                out.append(f" ~ {lo} {atom}*" if lo > 0 else "*")
            else:
                out.append(f" ~ {lo}..{int(hi)}")
            last_atom = None
            continue
        if kind == "name":
            name = m.group(0)
            new = name.replace("-", "_")
            if renamed.setdefault(new, name) != name:
                raise ValueError(f"glrmask lark: rules {name} and {renamed[new]} would both be named {new}")
            out.append(new)
            last_atom = (len(out) - 1, len(out))
            continue
        if kind == "tok":
            t = token_text(int(m.group("id")))
            if t is None:
                raise ValueError(f"glrmask lark: the grammar names token {m.group('id')}, which is not text to GLRMask")
            out.append(json.dumps(t))
            last_atom = (len(out) - 1, len(out))
            continue
        if kind in ("str", "re"):
            out.append(m.group(0))
            last_atom = (len(out) - 1, len(out))
            continue
        p = m.group(0)
        out.append(p)
        if p == "(":
            starts.append(len(out) - 1)
            last_atom = None
        elif p == ")":
            last_atom = (starts.pop(), len(out))
        else:
            last_atom = None
    return "".join(out)
