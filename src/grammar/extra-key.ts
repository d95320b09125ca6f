// Owns: the rule that spells an object's extra key (a member name the schema does not list), never one of the
// listed names: a trie over those names, one rule per proper prefix.

import { type CodeRange, charClass, literal, type RuleSet } from "./gbnf.js";
import { complement, intersect } from "./regex.js";
import { automatonAvoiding, exactly } from "./regex-dfa.js";

/** Characters of an extra JSON key in the narrow set: printable ASCII but `"`, `<` and `\\`. */
export const KEY_CHARS: readonly CodeRange[] = [
  [0x20, 0x21],
  [0x23, 0x3b],
  [0x3d, 0x5b],
  [0x5d, 0x7e],
];

/** Every code point a JSON string holds raw beyond ASCII (surrogates are not characters). */
const NON_ASCII: readonly CodeRange[] = [
  [0x80, 0xd7ff],
  [0xe000, 0x10ffff],
];

/** A qwen3coder parameter name: a letter or `_`, then letters, digits and `_`. */
const NAME_FIRST: readonly CodeRange[] = [[0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
const NAME_NEXT: readonly CodeRange[] = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];

/** JSON's two-byte escapes (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`), as GBNF. */
const JSON_ESCAPE = '"\\\\" ["\\\\bfnrt]';
/** Characters only an escape spells. */
const ESCAPED = /["\\\b\f\n\r\t]/;
/** Characters no extra key spells at all (a name holding one can never be spelled). */
const NEVER_SPELLED = /[<\u0000-\u0007\u000b\u000e-\u001f\u007f\ud800-\udfff]/;

/**
 * What an extra key avoids so that it matches no patternProperties pattern (see pattern-properties.ts). Present
 * on every object patternProperties shaped: its extra keys are then never wide (a universal pattern such as
 * `^.+$` matches no key of `\n` alone).
 */
export interface KeyAvoid {
  /** Characters an extra key may not start with. */
  first: readonly CodeRange[];
  /** An extra key holds at least one character outside these (absent: no such need). */
  leave?: readonly CodeRange[];
  /** Keys an extra key is never, as it is never a listed name (patterns of one key: `^billing_id$`). */
  words?: readonly string[];
  /**
   * Patterns an extra key matches none of, held by an automaton where neither its first character nor a character
   * it leaves out tells every key apart (`additionalProperties` anywhere in the key, `_Localised$`). Only an
   * unbounded key spells it (a bounded one is not written: fewer members, never an invalid one).
   */
  outside?: readonly string[];
}

/** Whether extra keys must avoid something (else they may match any pattern, or there is none). */
export function avoidsAny(avoid: KeyAvoid | undefined): boolean {
  return avoid !== undefined && (avoid.first.length > 0 || avoid.leave !== undefined || (avoid.words?.length ?? 0) > 0 || (avoid.outside?.length ?? 0) > 0);
}

export interface ExtraKeyOptions {
  /** `json`: a JSON object key; `name`: a qwen3coder parameter name. */
  kind: "json" | "name";
  /** Most characters (Infinity: unbounded). */
  most: number;
  /**
   * Any character a JSON key may hold: non-ASCII and JSON's two-byte escapes too (only unbounded, since a bounded
   * key counts one byte a character; only where no pattern key must match it: a key of `\n` or U+2028 alone
   * matches no `.`). Otherwise printable ASCII but `"`, `<` and `\\`.
   */
  wide: boolean;
  /** What the key avoids (patternProperties). Default: nothing. */
  avoid?: KeyAvoid;
}

/**
 * The rule (its name) that spells an extra key between the quotes: not empty, none of `names`, avoiding what
 * `o.avoid` says. Undefined when no key is left to spell.
 */
export function extraKeyRule(rules: RuleSet, names: readonly string[], o: ExtraKeyOptions): string | undefined {
  if (o.avoid?.outside) return o.most === Infinity ? automatonKeyRule(rules, names, o.kind, o.avoid.outside) : undefined;
  const wide = o.kind === "json" && o.wide && o.most === Infinity && !o.avoid;
  const chars = o.kind === "name" ? NAME_NEXT : wide ? [...KEY_CHARS, ...NON_ASCII] : KEY_CHARS;
  const first = intersect(o.kind === "name" ? NAME_FIRST : chars, complement(o.avoid?.first ?? []));
  const leave = o.avoid?.leave;
  // Escapes are spelled only where no listed name needs one, so no extra key can spell a listed name.
  const escapes = wide && !names.some((w) => ESCAPED.test(w) && !NEVER_SPELLED.test(w));
  const inSet = (set: readonly CodeRange[], cp: number) => set.some(([lo, hi]) => cp >= lo && cp <= hi);
  const words = new Map<string, number[]>();
  for (const name of [...names, ...(o.avoid?.words ?? [])]) {
    const cps = [...name].map((c) => c.codePointAt(0)!);
    if (cps.length > 0 && cps.length <= o.most && inSet(first, cps[0]!) && cps.slice(1).every((c) => inSet(chars, c))) words.set(name, cps);
  }
  const prefix = o.kind === "json" ? "key" : "extra-key";
  const char = escapes ? rules.add(`${prefix}-char`, `${charClass(chars)} | ${JSON_ESCAPE}`) : charClass(chars);
  const rest = (left: number) => (left === Infinity ? `${char}*` : left <= 0 ? "" : `${char}{0,${left}}`);
  const need = leave ? leavingTail(rules, prefix, chars, leave) : undefined;
  // A node with no way on (a listed name as long as the longest extra key) is left out, never written as an
  // empty rule (llama.cpp refuses one). `gone`: whether a character outside `leave` was spelled already.
  const node = (at: readonly number[], gone: boolean): string | undefined => {
    const children = new Set<number>();
    for (const cps of words.values()) if (cps.length > at.length && at.every((c, i) => cps[i] === c)) children.add(cps[at.length]!);
    const spelled = String.fromCodePoint(...at);
    const alts: string[] = [];
    if (at.length > 0 && !words.has(spelled) && gone) alts.push('""');
    for (const c of [...children].sort((a, b) => a - b)) {
      const sub = node([...at, c], gone || !inSet(leave ?? [], c));
      if (sub) alts.push(`${literal(String.fromCodePoint(c))} ${sub}`);
    }
    if (at.length < o.most) {
      const left = o.most - at.length - 1;
      const open = intersect(at.length === 0 ? first : chars, complement([...children].map((c) => [c, c] as const)));
      const inLeave = gone || !leave ? [] : intersect(open, leave);
      const outside = gone || !leave ? open : intersect(open, complement(leave));
      if (outside.length > 0) alts.push(`${charClass(outside)} ${rest(left)}`.trim());
      const needing = inLeave.length > 0 ? need!(left) : undefined;
      if (needing) alts.push(`${charClass(inLeave)} ${needing}`);
      if (escapes) alts.push(`${JSON_ESCAPE} ${rest(left)}`.trim());
    }
    if (alts.length === 0) return undefined;
    const flag = gone ? "" : "-need";
    return rules.add(at.length === 0 ? `${prefix}${flag}` : `${prefix}-${spelled}${flag}`, alts.join(" | "));
  };
  return node([], !leave);
}

/**
 * The rest of a key that must still spell a character outside `leave`, in at most `left` characters (Infinity:
 * unbounded); undefined when none is left to spell it.
 */
function leavingTail(rules: RuleSet, prefix: string, chars: readonly CodeRange[], leave: readonly CodeRange[]): (left: number) => string | undefined {
  const inside = intersect(chars, leave);
  const leaving = intersect(chars, complement(leave));
  const outside = charClass(leaving);
  const any = charClass(chars);
  const made = new Map<number, string | undefined>();
  const tail = (left: number): string | undefined => {
    // No character of the key's set is outside `leave` (a `^\w+$` pattern beside qwen3coder parameter names).
    if (leaving.length === 0) return undefined;
    if (made.has(left)) return made.get(left);
    let name: string | undefined;
    if (left === Infinity) {
      name = rules.reserve(`${prefix}-leave`);
      rules.define(name, `${inside.length > 0 ? `${charClass(inside)} ${name} | ` : ""}${outside} ${any}*`);
    } else if (left >= 1) {
      const deeper = inside.length > 0 ? tail(left - 1) : undefined;
      const done = left > 1 ? `${outside} ${any}{0,${left - 1}}` : outside;
      name = rules.add(`${prefix}-leave-${left}`, deeper ? `${charClass(inside)} ${deeper} | ${done}` : done);
    }
    made.set(left, name);
    return name;
  };
  return tail;
}

/** Every extra key of each kind, as a pattern: the narrow JSON key set (as KEY_CHARS), or a parameter name. */
const KEY_TEXT = { json: "^[ -!#-;=-\\[\\]-~]+$", name: "^[A-Za-z_][0-9A-Za-z_]*$" } as const;

/**
 * The rule of an extra key that matches none of `avoided` and is none of `names`: one rule per state of the
 * automaton, so one way to spell each key (unambiguous). Undefined when no key is left or the automaton is past
 * its bounds.
 */
function automatonKeyRule(rules: RuleSet, names: readonly string[], kind: "json" | "name", avoided: readonly string[]): string | undefined {
  const dfa = automatonAvoiding(KEY_TEXT[kind], [...avoided, ...names.map(exactly)]);
  if (!dfa) return undefined;
  const prefix = kind === "json" ? "key-outside" : "extra-key-outside";
  // A state with no way on is an end (the automaton is trimmed): written as nothing, never as an empty rule.
  const rule = dfa.moves.map((moves, s) => (moves.length > 0 ? rules.reserve(`${prefix}-${s}`) : undefined));
  const after = (to: number) => (rule[to] === undefined ? "" : dfa.accept[to] ? `${rule[to]}?` : rule[to]);
  dfa.moves.forEach((moves, s) => {
    if (rule[s]) rules.define(rule[s], moves.map((m) => `${charClass(m.ranges)} ${after(m.to)}`.trim()).join(" | "));
  });
  return rule[0];
}
