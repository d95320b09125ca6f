// Owns: the `regex` string format as a GBNF rule: a context-free subset of regular-expression syntax whose every
// string is a pattern JavaScript compiles with and without the `u` flag (ajv-formats checks `new RegExp(s)`), and
// never ends in `\Z` (which ajv-formats refuses). Nesting is free (groups, lookaround); what the rule leaves out
// to stay inside that promise: `{`, `}` and `]` as literals, a class range other than a-z, A-Z, 0-9, a-f, A-F or
// 1-9 (a range's ends must be in order), `{n,m}` where the digits alone do not prove n ≤ m, named groups (names
// must differ), backreferences (the group must exist), `\p{…}`, `\0`, and `<` (never spelled inside a string).

import { charClass, literal, type RuleSet } from "./gbnf.js";

/** The characters of regex syntax written as themselves outside a class (never a quantifier, group or anchor). */
const PLAIN = " !\"#%&',-0123456789:;=>@ABCDEFGHIJKLMNOPQRSTUVWXYZ_`abcdefghijklmnopqrstuvwxyz~/";
/** Characters an escape may name outside a class (syntax characters, `/`), and class escapes or controls. */
const ESCAPED = "dDwWsSfnrtv^$\\.*+?()[]{}|/";
/** Inside a class: every printable ASCII character but `\`, `]`, `-` (a range's dash) and `<`. */
const CLASS_PLAIN = " !\"#$%&'()*+,./0123456789:;=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[^_`abcdefghijklmnopqrstuvwxyz{|}~";
const CLASS_ESCAPED = "dDwWsSbfnrtv^$\\.*+?()[]{}|/-";
const RANGES = ["a-z", "A-Z", "0-9", "a-f", "A-F", "1-9"];
const HEX = "[0-9A-Fa-f]";

/** Regex text as the JSON string spells it (`\` and `"` escaped), as one GBNF literal. */
const jsonText = (text: string) => literal(text.replace(/[\\"]/g, (c) => `\\${c}`));

/** One regex character out of `chars` (ASCII), as JSON spells it. */
function jsonChars(chars: string): string {
  const plain = [...chars].filter((c) => c !== "\\" && c !== '"').map((c) => [c.charCodeAt(0), c.charCodeAt(0)] as const);
  const escaped = [...chars].filter((c) => c === "\\" || c === '"').map(jsonText);
  const alts = [...(plain.length > 0 ? [charClass(plain)] : []), ...escaped];
  return alts.length === 1 ? alts[0]! : `(${alts.join(" | ")})`;
}

/** `{n}`, `{n,}` and `{n,m}` where n ≤ m shows in the digits (one digit each in order, or m longer than n). */
function counted(): string {
  const pairs = Array.from({ length: 10 }, (_, n) => `"${n},"${n === 9 ? ' "9"' : ` [${n}-9]`}`);
  return `"{" ([0-9]{1,3} ","? | ${pairs.join(" | ")} | [0-9] "," [1-9] [0-9]{1,2} | [1-9] [0-9] "," [1-9] [0-9]{2}) "}"`;
}

/** The rule `name` (content of a JSON string) holding the regular expressions above. */
export function regexFormatRule(rules: RuleSet, name: string): string {
  const backslash = jsonText("\\");
  const escape = rules.add("regex-escape", `${backslash} (${jsonChars(ESCAPED)} | "x" ${HEX}{2} | "u" ${HEX}{4} | "c" [A-Za-z])`);
  const classEscape = rules.add("regex-class-escape", `${backslash} (${jsonChars(CLASS_ESCAPED)} | "x" ${HEX}{2} | "u" ${HEX}{4})`);
  const range = `(${RANGES.map((r) => literal(r)).join(" | ")})`;
  const cls = rules.add("regex-class", `"[" "^"? "-"? (${range} | ${jsonChars(CLASS_PLAIN)} | ${classEscape})* "-"? "]"`);
  const quantifier = rules.add("regex-quantifier", `([*+?] | ${counted()}) "?"?`);
  const atom = rules.add("regex-atom", `${jsonChars(PLAIN)} | ${escape} | ${cls} | "." | "(" "?:"? ${name} ")"`);
  // Assertions take no quantifier (the `u` flag refuses one after them).
  const assertion = rules.add("regex-assertion", `"^" | "$" | ${backslash} [bB] | "(?" "<"? [=!] ${name} ")"`);
  const term = rules.add("regex-term", `${atom} ${quantifier}? | ${assertion}`);
  const sequence = rules.add("regex-sequence", `${term}*`);
  return rules.addNamed(name, `${sequence} ("|" ${sequence})*`);
}
