// Strings for the "format" differential test: for each format, strings built field by field with
// values at and past each field's bounds (valid ones and near misses), and mutations of them
// (characters swapped, deleted, inserted, replaced). Deterministic from a seed.
import { rng } from "../../scripts/lib/rng.mjs";

type Rng = () => number;

const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const int = (r: Rng, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const pad = (n: number, w: number) => String(n).padStart(w, "0");
const chars = (r: Rng, alphabet: string, lo: number, hi: number) => {
  const a = Array.from(alphabet);
  return Array.from({ length: int(r, lo, hi) }, () => pick(r, a)).join("");
};
const HEX = "0123456789abcdefABCDEF";

const date = (r: Rng) => {
  const y = r() < 0.5 ? pick(r, [0, 4, 100, 400, 1600, 1900, 2000, 2023, 2024, 2100, 9996, 9999]) : int(r, 0, 9999);
  const m = r() < 0.9 ? int(r, 1, 12) : pick(r, [0, 13, 99]);
  const d = r() < 0.5 ? pick(r, [1, 28, 29, 30, 31, 0, 32]) : int(r, 1, 28);
  return r() < 0.03 ? `${y}-${m}-${d}` : `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
};

/** A valid value at or between its bounds, or (one time in `miss`) a near miss. */
const field = <T>(r: Rng, ok: () => T, bad: readonly T[], miss = 0.08): T => (r() < miss ? pick(r, bad) : ok());

const offset = (r: Rng) => {
  if (r() < 0.3)
    return field(r, () => pick(r, ["Z", "z", "+00:00", "-00:00", "+00", "-0000"]), ["", "UTC", "GMT", "Z0"]);
  const hh = field(r, () => pad(pick(r, [0, 1, 5, 8, 12, 14, 23, int(r, 0, 23)]), 2), ["24", "99", "1"]);
  const mm = field(r, () => pad(pick(r, [0, 30, 45, 59, int(r, 0, 59)]), 2), ["60", "99", "5"]);
  const sign = field(r, () => pick(r, ["+", "-"]), ["−", "", "*"]);
  return `${sign}${hh}${field(r, () => pick(r, [`:${mm}`, mm, "", `:${mm}`]), [":", `:${mm}:`])}`;
};

const time = (r: Rng) => {
  const hh = field(r, () => pad(pick(r, [0, 9, 12, 23, int(r, 0, 23)]), 2), ["24", "25", "99", "1"]);
  const mm = field(r, () => pad(pick(r, [0, 30, 59, int(r, 0, 59)]), 2), ["60", "99", "7"]);
  const ss = field(r, () => pad(pick(r, [0, 30, 59, int(r, 0, 59)]), 2), ["60", "61", "99", "5"]);
  const frac = field(r, () => pick(r, ["", "", ".5", `.${chars(r, "0123456789", 1, 9)}`]), [".", ",5", ".x"]);
  return `${hh}:${mm}:${ss}${frac}${offset(r)}`;
};

/** Leap seconds at and around 23:59 UTC, in several offsets. */
const leapTime = (r: Rng) => {
  const h = int(r, 0, 23);
  const k = r();
  if (k < 0.3) return `${pad(h, 2)}:59:60${pick(r, ["", ".25"])}-${pad(23 - h, 2)}${pick(r, [":00", "00", ""])}`;
  if (k < 0.6) return `${pad(h, 2)}:59:60+${pad((h + 1) % 24, 2)}${pick(r, [":00", "00", ""])}`;
  if (k < 0.8) {
    const m = int(r, 0, 58);
    return `${pad(h, 2)}:${pad(m, 2)}:60+${pad(h, 2)}:${pad(m + 1, 2)}`;
  }
  return `${pad(int(r, 22, 26), 2)}:${pad(int(r, 58, 62), 2)}:${pick(r, ["60", "59", "30"])}+${pad(int(r, 0, 2), 2)}:${pad(int(r, 0, 3), 2)}`;
};

const dateTime = (r: Rng) => {
  const sep = field(r, () => pick(r, ["T", "T", "T", "t", " ", "\n", "\t", "\u00a0", "\u2028", "\u3000", "\ufeff"]), [
    "_",
    "x",
    "",
    "TT",
  ]);
  return `${date(r)}${sep}${r() < 0.15 ? leapTime(r) : time(r)}`;
};

const duration = (r: Rng) => {
  const n = () => String(pick(r, [0, 1, 12, 100, int(r, 0, 99999)]));
  if (r() < 0.15) return `P${n()}W${r() < 0.2 ? `T${n()}H` : ""}`;
  const date = ["Y", "M", "D"].filter(() => r() < 0.4).map((u) => `${n()}${u}`);
  const time = ["H", "M", "S"].filter(() => r() < 0.4).map((u) => `${n()}${u}`);
  if (r() < 0.05) date.reverse();
  const t = time.length > 0 || r() < 0.1 ? `T${time.join("")}` : "";
  const s = `P${date.join("")}${t}`;
  return r() < 0.05 ? s.replace(/\d+/, `${n()}.5`) : r() < 0.03 ? s.toLowerCase() : s;
};

const ATEXT = "abcxyzABCXYZ0189!#$%&'*+/=?^_`{|}~-";
const LABEL_CHARS = "abcxyzABCXYZ0189-";
const label = (r: Rng, lengths: number[]) => {
  const len = pick(r, lengths);
  if (len === 1) return chars(r, "abzAZ09", 1, 1);
  const mid = chars(r, LABEL_CHARS, len - 2, len - 2);
  return `${chars(r, "abzAZ09", 1, 1)}${mid}${chars(r, "abzAZ09", 1, 1)}`;
};
const oddLabel = (r: Rng) =>
  pick(r, ["-a", "a-", "a_b", "_a", "münchen", "xn--mnchen-3ya", "", "a b", "a--b", "1", "0x"]);

const email = (r: Rng) => {
  const atoms = Array.from({ length: int(r, 1, 3) }, () =>
    r() < 0.9 ? chars(r, ATEXT, 1, 8) : pick(r, ["", '"a b"', "é", "a(b)"]),
  );
  const labels = Array.from({ length: int(r, 1, 4) }, () => (r() < 0.85 ? label(r, [1, 2, 3, 7, 12]) : oddLabel(r)));
  const domain = r() < 0.04 ? `[${int(r, 0, 255)}.1.2.3]` : labels.join(".");
  return `${atoms.join(".")}${pick(r, ["@", "@", "@", "", "@@"])}${domain}`;
};

/** A host name of `total` characters (a final dot included): labels of 40 to 63 characters, the last one what is left. */
const hostnameOfLength = (r: Rng, total: number, finalDot: boolean) => {
  const labels: string[] = [];
  let left = total - (finalDot ? 1 : 0);
  while (left > 63) {
    const len = Math.min(left - 2, int(r, 40, 63)); // a dot and at least one character after it
    labels.push(label(r, [len]));
    left -= len + 1;
  }
  labels.push(label(r, [left]));
  return `${labels.join(".")}${finalDot ? "." : ""}`;
};

const hostname = (r: Rng) => {
  // around the whole name's limit (ajv-formats: 253 characters, a final dot aside)
  if (r() < 0.12) return hostnameOfLength(r, int(r, 248, 262), r() < 0.3);
  const long = r() < 0.25;
  const count = long ? int(r, 3, 8) : int(r, 1, 5);
  const lengths = long ? [40, 50, 60, 61, 62, 63] : [1, 2, 3, 5, 10, 62, 63, 64, 70];
  const labels = Array.from({ length: count }, () => (r() < 0.92 ? label(r, lengths) : oddLabel(r)));
  return `${labels.join(".")}${r() < 0.1 ? "." : ""}`;
};

const octet = (r: Rng) =>
  String(pick(r, [0, 1, 9, 10, 99, 100, 199, 200, 249, 250, 255, 256, 300, 999, int(r, 0, 255), int(r, 0, 255)]));
const oddOctet = (r: Rng) => pick(r, ["00", "01", "001", "010", "0255", "-1", "", "1a", " 1"]);
const ipv4 = (r: Rng) =>
  Array.from({ length: r() < 0.9 ? 4 : pick(r, [3, 5]) }, () => (r() < 0.93 ? octet(r) : oddOctet(r))).join(".");
const ipv4z = (r: Rng) =>
  Array.from({ length: 4 }, () => (r() < 0.8 ? octet(r) : pick(r, ["00", "01", "001", "010"]))).join(".");

const ipv6 = (r: Rng, v4: (r: Rng) => string = ipv4) => {
  const group = () => (r() < 0.95 ? chars(r, HEX, 1, 4) : pick(r, ["", "12345", "g", "0000"]));
  const v4tail = r() < 0.25;
  const total = 8 - (v4tail ? 2 : 0);
  const compress = r() < 0.7;
  const n = compress ? int(r, 0, total - 1) : r() < 0.85 ? total : int(r, total - 1, total + 1);
  const groups = Array.from({ length: n }, group);
  let s: string;
  if (compress) {
    const at = int(r, 0, n);
    s = `${groups.slice(0, at).join(":")}::${groups.slice(at).join(":")}`;
    if (v4tail && at < n) s += ":";
  } else s = groups.join(":") + (v4tail ? ":" : "");
  if (v4tail) s += v4(r);
  if (r() < 0.03) s += pick(r, ["%eth0", "::", ":", "/64"]);
  return s;
};

const uuid = (r: Rng) => {
  const lens = r() < 0.9 ? [8, 4, 4, 4, 12] : [8, 4, 4, 4, 12].map((l) => l + pick(r, [-1, 0, 1]));
  const body = lens.map((l) => chars(r, r() < 0.97 ? HEX : `${HEX}gG`, l, l)).join(pick(r, ["-", "-", "-", "", "_"]));
  return `${pick(r, ["", "", "", "urn:uuid:", "URN:UUID:", "Urn:Uuid:", "urn:uuid", "uuid:", "{"])}${body}`;
};

const PCHARS = "abzAZ09-._~!$&'()*+,;=:@";
const BAD_URI_CHARS = [" ", "<", ">", '"', "{", "}", "|", "\\", "^", "`", "é", "%", "%zz", "%4", "[", "]", "#"];
const segment = (r: Rng) =>
  r() < 0.9 ? chars(r, PCHARS, 0, 6) + (r() < 0.2 ? `%${chars(r, HEX, 2, 2)}` : "") : pick(r, BAD_URI_CHARS);
const uri = (r: Rng) => {
  const scheme = pick(r, ["http", "https", "ftp", "mailto", "urn", "file", "a", "A+b-c.d", "1a", "", "h_t", "x"]);
  const colon = r() < 0.95 ? ":" : "";
  let hier: string;
  const k = r();
  if (k < 0.55) {
    const user = r() < 0.15 ? `${chars(r, "abz09-._~!$&'()*+,;=:%", 0, 6)}@` : "";
    const hk = r();
    const host =
      hk < 0.5
        ? chars(r, "abzAZ09-._~!$&'()*+,;=", 0, 12)
        : hk < 0.65
          ? ipv4z(r)
          : hk < 0.85
            ? `[${ipv6(r, ipv4z)}]`
            : hk < 0.9
              ? `[v${chars(r, HEX, 1, 2)}.${chars(r, "abz09:", 0, 4)}]`
              : pick(r, ["[::1", "::1", "a b", "é", "[::1]x", "[g::]"]);
    const port = r() < 0.2 ? `:${pick(r, ["", "80", "8080", "65536", "x"])}` : "";
    const path = Array.from({ length: int(r, 0, 3) }, () => `/${segment(r)}`).join("");
    hier = `${pick(r, ["//", "//", "//", "/", "///"])}${user}${host}${port}${path}`;
  } else if (k < 0.7) hier = `/${Array.from({ length: int(r, 0, 3) }, () => segment(r)).join("/")}`;
  else if (k < 0.95) hier = Array.from({ length: int(r, 1, 3) }, () => segment(r)).join("/");
  else hier = "";
  const query = r() < 0.2 ? `?${chars(r, `${PCHARS}/?`, 0, 8)}${r() < 0.1 ? pick(r, BAD_URI_CHARS) : ""}` : "";
  const frag = r() < 0.15 ? `#${chars(r, `${PCHARS}/?`, 0, 8)}${r() < 0.1 ? pick(r, BAD_URI_CHARS) : ""}` : "";
  return `${scheme}${colon}${hier}${query}${frag}`;
};

const time1 = (r: Rng) => (r() < 0.2 ? leapTime(r) : time(r));

/** Each format's field-by-field generator and the characters its mutations insert. */
export const FORMAT_GENERATORS: Record<string, { make: (r: Rng) => string; alphabet: string }> = {
  "date-time": { make: dateTime, alphabet: "0123456789-:.+TtZz \n" },
  date: { make: date, alphabet: "0123456789-/" },
  time: { make: time1, alphabet: "0123456789:.+-Zz" },
  duration: { make: duration, alphabet: "0123456789PYMWDTHS.," },
  email: { make: email, alphabet: 'aZ09.@-_+ !"' },
  hostname: { make: hostname, alphabet: "aZ09.-_ é" },
  ipv4: { make: ipv4, alphabet: "0123456789. " },
  ipv6: { make: ipv6, alphabet: "0123456789abcdefABCDEFg:. " },
  uuid: { make: uuid, alphabet: "0123456789abcdefABCDEFg-:{" },
  uri: { make: uri, alphabet: "aZ09:/?#[]@%.-_~!$&'()*+,;= <>\"{}é\\" },
};

/** One mutation of `s`: two neighbours swapped, a character deleted, inserted or replaced, or a part doubled. */
function mutate(r: Rng, s: string, alphabet: string): string {
  const a = Array.from(s);
  const at = int(r, 0, Math.max(0, a.length - 1));
  const c =
    r() < 0.9 ? pick(r, Array.from(alphabet)) : pick(r, ["\u0000", "\u00e9", "\ud83d\ude00", "\u2028", "\\", "'"]);
  switch (int(r, 0, 4)) {
    case 0:
      if (a.length > 1 && at + 1 < a.length) [a[at], a[at + 1]] = [a[at + 1]!, a[at]!];
      break;
    case 1:
      a.splice(at, 1);
      break;
    case 2:
      a.splice(int(r, 0, a.length), 0, c);
      break;
    case 3:
      a[at] = c;
      break;
    default: {
      const end = int(r, at, a.length);
      a.splice(end, 0, ...a.slice(at, end));
    }
  }
  return a.join("");
}

/**
 * At least `count` distinct strings for `format`: generated ones, each followed by mutations of it
 * (1 or 2 in a row), plus `extra` (boundary values written out).
 */
export function formatStrings(format: string, count: number, extra: readonly string[] = [], seed = 31): string[] {
  const g = FORMAT_GENERATORS[format]!;
  const r = rng(seed);
  const out = new Set<string>(extra);
  while (out.size < count) {
    const s = g.make(r);
    out.add(s);
    let m = s;
    for (let i = int(r, 1, 2); i > 0; i--) {
      m = mutate(r, m, g.alphabet);
      out.add(m);
    }
  }
  return [...out];
}
