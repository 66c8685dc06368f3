// "format": the string formats the grammar enforces, each one regular expression in the subset
// pattern.ts lowers (so every spelling of a character, JSON escapes, Python literals and raw text,
// comes with the pattern lowering), anchored at both ends; hostname alternatives of expressions a
// name matches all of (its length: the grammar's intersection). Each accepts what ajv-formats 3.0.1
// accepts in its default "full" mode, except the difference docs/json-schema.md lists ("format"),
// which test/no-model/formats.test.ts holds against ajv-formats on generated strings.
// Letters are written in both cases where ajv-formats compiles its expression with the i flag
// (without the u flag: ASCII letters only fold).

const DIGIT = "[0-9]";
const HEX = "[0-9a-fA-F]";
/** Either case of each ASCII letter of `s` (other characters escaped where a regex needs it). */
const caseless = (s: string) =>
  Array.from(s, (c) =>
    /[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c.replace(/[.+*?]/, "\\$&"),
  ).join("");

// RFC 3339 §5.6 full-date, with the days of each month (February 29 in leap years only)
const LEAP_YEAR = "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[048]|[2468][048]|[13579][26])00)";
const DATE =
  "(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))" +
  `|${LEAP_YEAR}-02-29)`;
// RFC 3339 §5.6 full-time: an offset is required (Z, z, +hh, +hhmm or +hh:mm, hh ≤ 23, mm ≤ 59)
const FRAC = "(?:\\.[0-9]+)?";
const HOUR = "(?:[01][0-9]|2[0-3])";
const OFFSET = `(?:[Zz]|[+-]${HOUR}(?::?[0-5][0-9])?)`;
/** Second 60 (a leap second) at 23:59 UTC written with a zero offset. */
const LEAP_SECOND = `23:59:60${FRAC}(?:[Zz]|[+-]00(?::?00)?)`;
const TIME = `(?:${HOUR}:[0-5][0-9]:[0-5][0-9]${FRAC}${OFFSET}|${LEAP_SECOND})`;
// ISO 8601 durations as RFC 3339 appendix A writes them: P, then weeks alone, or date parts then
// time parts (after T), each in order and at least one
const DUR_TIME = `(?:${DIGIT}+H(?:${DIGIT}+M)?(?:${DIGIT}+S)?|${DIGIT}+M(?:${DIGIT}+S)?|${DIGIT}+S)`;
const DUR_DATE = `(?:${DIGIT}+Y(?:${DIGIT}+M)?(?:${DIGIT}+D)?|${DIGIT}+M(?:${DIGIT}+D)?|${DIGIT}+D)`;
const DURATION = `P(?:${DIGIT}+W|${DUR_DATE}(?:T${DUR_TIME})?|T${DUR_TIME})`;
// RFC 1123 host names: labels of 1–63 letters, digits and hyphens, no hyphen first or last, an optional final dot,
// and at most 253 characters, a final dot aside: ajv-formats' lookahead `(?=.{1,253}\.?$)`, which for
// a host name is a name of 1–253 characters, or one of 2–254 that ends in its final dot
const LABEL63 = "[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?";
const NAME = `${LABEL63}(?:\\.${LABEL63})*`;
const HOSTNAME = `${NAME}\\.?`;
// email: a dot-atom local part (RFC 5322 §3.2.3) and a domain of two or more labels
const ATEXT = "[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]";
const LABEL = "[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?";
const EMAIL = `${ATEXT}+(?:\\.${ATEXT}+)*@${LABEL}(?:\\.${LABEL})+`;
// RFC 3986 IPv4address and IPv6address (RFC 4291 §2.2 text forms)
const OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
const IPV4 = `(?:${OCTET}\\.){3}${OCTET}`;
const H16 = `${HEX}{1,4}`;
/**
 * IPv6 text forms: eight groups, or fewer with one "::" standing for the missing ones (at least
 * one), the last two groups possibly written as an IPv4 address. The same language as RFC 3986's
 * IPv6address rule, written so that the IPv4 part appears once: hex groups only (`hex(i)`: i groups
 * read, no "::" yet), or the part before an embedded IPv4 address (`beforeV4(i)`), which ends in ":".
 */
const ipv6 = (ipv4: string) => {
  const rest = (k: number) => (k === 0 ? "" : `(?:${H16}(?::${H16}){0,${k - 1}})?`);
  const hex = (i: number): string => {
    const gap = `::${rest(7 - i)}`;
    if (i === 0) return `(?:${gap}|${H16}${hex(1)})`;
    return `(?:${gap}|:${H16}${i === 7 ? "" : hex(i + 1)})`;
  };
  const beforeV4 = (i: number): string => {
    if (i === 6) return ":";
    const gap = `::(?:${H16}:){0,${5 - i}}`;
    return `(?:${gap}|${i === 0 ? "" : ":"}${H16}${beforeV4(i + 1)})`;
  };
  return `(?:${hex(0)}|${beforeV4(0)}${ipv4})`;
};
const IPV6 = ipv6(IPV4);
// uuid: RFC 4122's 8-4-4-4-12 hex digits (any version and variant), optionally as urn:uuid:…
const UUID = `(?:${caseless("urn:uuid:")})?${HEX}{8}-(?:${HEX}{4}-){3}${HEX}{12}`;
// uri: RFC 3986 §3 URI (scheme ":" hier-part ["?" query] ["#" fragment]), as ajv-formats reads it:
// its IPv4 octets may have leading zeros (010), "//" may be written "/", and the hier-part is
// never empty
const UNRESERVED_SUB = "a-zA-Z0-9\\-._~!$&'()*+,;=";
const PCT = `%${HEX}{2}`;
const PCHAR = `(?:[${UNRESERVED_SUB}:@]|${PCT})`;
const OCTET_Z = "(?:25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)";
const IP_LITERAL = `\\[(?:${ipv6(`(?:${OCTET_Z}\\.){3}${OCTET_Z}`)}|[Vv]${HEX}+\\.[${UNRESERVED_SUB}:]+)\\]`;
const AUTHORITY = `(?:(?:[${UNRESERVED_SUB}:]|${PCT})*@)?(?:${IP_LITERAL}|(?:[${UNRESERVED_SUB}]|${PCT})*)(?::[0-9]*)?`;
const SEGMENTS = `(?:/${PCHAR}*)*`;
const HIER_PART = `(?:/?/${AUTHORITY}${SEGMENTS}|/(?:${PCHAR}+${SEGMENTS})?|${PCHAR}+${SEGMENTS})`;
const QUERY_CHAR = `(?:[${UNRESERVED_SUB}:@/?]|${PCT})`;
const URI = `[a-zA-Z][a-zA-Z0-9+\\-.]*:${HIER_PART}(?:\\?${QUERY_CHAR}*)?(?:#${QUERY_CHAR}*)?`;

/**
 * The formats the grammar enforces: each one's expression (unanchored), or, where one expression in
 * the pattern subset cannot say it, `parts`: alternatives of expressions a string matches all of
 * (the grammar's intersection of them); and what it accepts, in words.
 */
export const FORMATS: Readonly<
  Record<string, { source: string; parts?: ReadonlyArray<readonly string[]>; accepts: string }>
> = {
  "date-time": { source: `${DATE}[Tt\\s]${TIME}`, accepts: "RFC 3339 date-time" },
  date: { source: DATE, accepts: "RFC 3339 full-date" },
  time: { source: TIME, accepts: "RFC 3339 full-time" },
  duration: { source: DURATION, accepts: "ISO 8601 duration (RFC 3339 appendix A)" },
  email: { source: EMAIL, accepts: "dot-atom local part @ domain of two or more labels" },
  hostname: {
    source: HOSTNAME,
    parts: [
      [NAME, "[\\s\\S]{1,253}"],
      [`${NAME}\\.`, "[\\s\\S]{2,254}"],
    ],
    accepts: "RFC 1123 host name of at most 253 characters (a final dot aside)",
  },
  ipv4: { source: IPV4, accepts: "RFC 3986 IPv4address" },
  ipv6: { source: IPV6, accepts: "RFC 4291 IPv6 text form" },
  uuid: { source: UUID, accepts: "RFC 4122 UUID, optionally urn:uuid:" },
  uri: { source: URI, accepts: "RFC 3986 URI (a scheme required)" },
};

export const isEnforcedFormat = (name: unknown): name is string =>
  typeof name === "string" && Object.hasOwn(FORMATS, name);

const regexps = new Map<string, RegExp[][]>();
/** Whether `value` has format `name` (one of FORMATS), by the same expressions the grammar is lowered from. */
export function formatAccepts(name: string, value: string): boolean {
  let res = regexps.get(name);
  if (!res) {
    const f = FORMATS[name]!;
    res = (f.parts ?? [[f.source]]).map((all) => all.map((src) => new RegExp(`^(?:${src})$`, "u")));
    regexps.set(name, res);
  }
  return res.some((all) => all.every((re) => re.test(value)));
}
