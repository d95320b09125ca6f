// Owns: the string formats the grammar can honour (date, time, date-time, uuid, regex) as GBNF rules that only
// spell values ajv-formats accepts in its "full" mode (real calendar days, leap years, a required time zone; a
// pattern RegExp compiles: regex-format.ts).

import type { RuleSet } from "./gbnf.js";
import { regexFormatRule } from "./regex-format.js";

export const SUPPORTED_FORMATS = ["date", "time", "date-time", "uuid", "regex"] as const;
export type StringFormat = (typeof SUPPORTED_FORMATS)[number];

export function isSupportedFormat(format: string): format is StringFormat {
  return (SUPPORTED_FORMATS as readonly string[]).includes(format);
}

const URI_CHAR = "[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2}";
const PCHAR = "[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2}";
const QCHAR = "[A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2}";
const OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,60}[A-Za-z0-9])?";
/** A path segment's character without ":" (the first segment of a relative reference, RFC 3986 segment-nz-nc). */
const NCCHAR = "[A-Za-z0-9._~!$&'()*+,;=@-]|%[0-9A-Fa-f]{2}";
const HEX4 = "[0-9A-Fa-f]{1,4}";
/** An IPv6 address compressed at "::" with i groups before it (and at most 7 - i after). */
const ipv6Compressed = (i: number) => `${i === 0 ? "" : `${HEX4}(?::${HEX4}){${i - 1}}`}::(?:${HEX4}(?::${HEX4}){0,${6 - Math.min(i, 6)}})?`;
const URI = `[A-Za-z][A-Za-z0-9+.-]*:(?://(?:${URI_CHAR})*(?::[0-9]*)?(?:/(?:${PCHAR})*)*|/(?:(?:${PCHAR})+(?:/(?:${PCHAR})*)*)?|(?:${PCHAR})+(?:/(?:${PCHAR})*)*)(?:\\?(?:${QCHAR})*)?(?:#(?:${QCHAR})*)?`;

/**
 * Formats ajv-formats asserts ("full" mode) that the grammar spells as a pattern: each pattern admits only
 * strings ajv accepts (exact, or a documented subset: `hostname` and the host of `email` have at most 4 labels
 * of at most 62 characters, so that no lookahead is needed for the 253-character limit; `uri` spells hosts as
 * registered names, never IP literals).
 */
export const FORMAT_PATTERNS: Readonly<Record<string, { pattern: string; exact: boolean }>> = {
  email: {
    pattern: "^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\\.)+[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$",
    exact: true,
  },
  ipv4: { pattern: `^(?:${OCTET}\\.){3}${OCTET}$`, exact: true },
  hostname: { pattern: `^${LABEL}(?:\\.${LABEL}){0,3}\\.?$`, exact: false },
  uri: { pattern: `^${URI}$`, exact: false },
  // A URI, or a relative reference (network path, absolute path, or a first segment without ":").
  "uri-reference": {
    pattern: `^(?:${URI}|(?://(?:${URI_CHAR})*(?::[0-9]*)?(?:/(?:${PCHAR})*)*|/(?:(?:${PCHAR})+(?:/(?:${PCHAR})*)*)?|(?:${NCCHAR})+(?:/(?:${PCHAR})*)*)?(?:\\?(?:${QCHAR})*)?(?:#(?:${QCHAR})*)?)$`,
    exact: false,
  },
  // http, https or ftp and a registered name with a top-level domain of letters (no IP hosts, no user part).
  url: {
    pattern: "^(?:[Hh][Tt][Tt][Pp][Ss]?|[Ff][Tt][Pp])://[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*(?:\\.[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)*\\.[A-Za-z]{2,63}(?::[0-9]{2,5})?(?:/[^\\s]*)?$",
    exact: false,
  },
  // Eight groups, or fewer around one "::" (no embedded IPv4 form).
  ipv6: { pattern: `^(?:(?:${HEX4}:){7}${HEX4}|${[0, 1, 2, 3, 4, 5, 6, 7].map(ipv6Compressed).join("|")})$`, exact: false },
  // Base64 in groups of 4, padded.
  byte: { pattern: "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$", exact: true },
};

/**
 * Formats ajv-formats asserts that the grammar holds neither as a rule nor as a pattern: `unsupported_keyword`
 * under `strict`, left to the validator under `validate`. Any other format name asserts nothing (ajv ignores
 * unknown formats) and is ignored.
 */
export const ASSERTED_FORMATS: ReadonlySet<string> = new Set([
  "iso-time",
  "iso-date-time",
  "duration",
  "uri-template",
  "json-pointer",
  "json-pointer-uri-fragment",
  "relative-json-pointer",
]);

/**
 * Shortest and longest spelling of each format, in characters (all ASCII, so also bytes). `regex` has no longest:
 * like a string without maxLength, it is left uncounted (the shared split) and the budget guard closes it.
 */
export const FORMAT_LENGTHS: Readonly<Record<StringFormat, readonly [number, number]>> = {
  date: [10, 10],
  time: [9, 21],
  "date-time": [20, 32],
  uuid: [36, 36],
  regex: [0, Infinity],
};

/**
 * A pattern holding every string each rule below spells (digits where the rule narrows them to real days and
 * hours): a `pattern` beside the format that holds all of these strings holds all the format's too.
 */
export const FORMAT_SUPERSETS: Readonly<Record<StringFormat, string>> = {
  date: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
  time: "^[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]{1,6})?(?:Z|[+-][0-9]{2}:[0-9]{2})$",
  "date-time": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]{1,6})?(?:Z|[+-][0-9]{2}:[0-9]{2})$",
  uuid: "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
  regex: "^[\\s\\S]*$",
};

/** The rule for a format's content (without quotes), created on first use. */
export function formatRule(rules: RuleSet, format: StringFormat): string {
  const name = `format-${format}`;
  if (rules.has(name)) return name;
  switch (format) {
    case "date": {
      const leap = rules.add(
        "leap-year",
        '[0-9] [0-9] ("0" [48] | [2468] [048] | [13579] [26]) | ([02468] [048] | [13579] [26]) "00"',
      );
      return rules.addNamed(
        name,
        [
          '[0-9]{4} "-" ("0" [13578] | "1" [02]) "-" ("0" [1-9] | [12] [0-9] | "3" [01])',
          '[0-9]{4} "-" ("0" [469] | "11") "-" ("0" [1-9] | [12] [0-9] | "30")',
          '[0-9]{4} "-02-" ("0" [1-9] | "1" [0-9] | "2" [0-8])',
          `${leap} "-02-29"`,
        ].join(" | "),
      );
    }
    case "time": {
      const hour = '([01] [0-9] | "2" [0-3])';
      return rules.addNamed(
        name,
        `${hour} ":" [0-5] [0-9] ":" [0-5] [0-9] ("." [0-9]{1,6})? ("Z" | [+-] ${hour} ":" [0-5] [0-9])`,
      );
    }
    case "date-time":
      return rules.addNamed(name, `${formatRule(rules, "date")} "T" ${formatRule(rules, "time")}`);
    case "uuid":
      return rules.addNamed(name, '[0-9a-f]{8} "-" [0-9a-f]{4} "-" [0-9a-f]{4} "-" [0-9a-f]{4} "-" [0-9a-f]{12}');
    case "regex":
      return regexFormatRule(rules, name);
  }
}
