// Owns: the string formats the grammar can honour (date, time, date-time, uuid) as GBNF rules that only spell
// values ajv-formats accepts in its "full" mode (real calendar days, leap years, a required time zone).

import type { RuleSet } from "./gbnf.js";

export const SUPPORTED_FORMATS = ["date", "time", "date-time", "uuid"] as const;
export type StringFormat = (typeof SUPPORTED_FORMATS)[number];

export function isSupportedFormat(format: string): format is StringFormat {
  return (SUPPORTED_FORMATS as readonly string[]).includes(format);
}

/** Shortest and longest spelling of each format, in characters (all ASCII, so also bytes). */
export const FORMAT_LENGTHS: Readonly<Record<StringFormat, readonly [number, number]>> = {
  date: [10, 10],
  time: [9, 21],
  "date-time": [20, 32],
  uuid: [36, 36],
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
  }
}
