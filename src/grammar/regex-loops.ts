// Owns: rewriting a repetition that could split one text many ways into one of the same language whose iterations
// split one way only (`([a-z.]+\.)+` is `[a-z.]+\.`, `(\.?[a-z]+)*` is `[a-z]*(\.[a-z]+)*`). Each rule is exact;
// boundedPattern proves the two languages equal as well before it keeps a rewrite.

import { complement, intersect, normalizeRanges, type Re } from "./regex.js";
import type { CodeRange } from "./gbnf.js";

const within = (a: readonly CodeRange[], b: readonly CodeRange[]) => intersect(a, complement(b)).length === 0;
const apart = (a: readonly CodeRange[], b: readonly CodeRange[]) => intersect(a, b).length === 0;
const plus = (ranges: CodeRange[]): Re => ({ t: "rep", item: { t: "set", ranges }, min: 1, max: undefined });
const star = (item: Re): Re => ({ t: "rep", item, min: 0, max: undefined });
const opt = (item: Re): Re => ({ t: "rep", item, min: 0, max: 1 });

/** Every code point `re` may spell. */
function alphabet(re: Re): CodeRange[] {
  if (re.t === "set") return re.ranges;
  if (re.t === "rep") return alphabet(re.item);
  return normalizeRanges(re.items.flatMap(alphabet));
}

/** `S{a,}` (a repeated class) → S and a; undefined for anything else. */
function classRun(re: Re): { ranges: CodeRange[]; min: number } | undefined {
  return re.t === "rep" && re.max === undefined && re.item.t === "set" ? { ranges: re.item.ranges, min: re.min } : undefined;
}

/** `P?` (an optional class) → P; undefined for anything else. */
function optionalClass(re: Re): CodeRange[] | undefined {
  return re.t === "rep" && re.min === 0 && re.max === 1 && re.item.t === "set" ? re.item.ranges : undefined;
}

/**
 * The loop `body{min,}` (min 0 or 1) written so that its iterations split one way, or undefined when no rule fits:
 * - a body with a run `S{a,}` at one end and every character in S (`(S{a,}C)`, `(KONG_\w+=\S+)`): its strings are
 *   closed under concatenation, so the loop is the body once (`+`) or at most once (`*`);
 * - `(P?T+)` with P apart from T: `T*(PT+)*` (`*`) or `P?T+(PT+)*` (`+`), each P opening a run of T;
 * - `(T+P?)` with P apart from T: `T+(PT+)*P?` (`+`), or that at most once (`*`).
 */
function loop(body: Re, min: number): Re | undefined {
  if (body.t !== "seq" || body.items.length < 2 || min > 1) return undefined;
  // A run of S at one end, and every character of the body in S: the run absorbs any body written beside it.
  const ends = [classRun(body.items[0]!), classRun(body.items[body.items.length - 1]!)];
  if (ends.some((run) => run !== undefined && within(alphabet(body), run.ranges))) return min === 1 ? body : opt(body);
  if (body.items.length !== 2) return undefined;
  const [x, y] = body.items as [Re, Re];
  const [p, t] = [optionalClass(x), classRun(y)];
  if (p && t && t.min === 1 && apart(p, t.ranges)) {
    const more = star({ t: "seq", items: [{ t: "set", ranges: p }, plus(t.ranges)] });
    return min === 0 ? { t: "seq", items: [star({ t: "set", ranges: t.ranges }), more] } : { t: "seq", items: [x, y, more] };
  }
  const [t2, p2] = [classRun(x), optionalClass(y)];
  if (t2 && p2 && t2.min === 1 && apart(p2, t2.ranges)) {
    const once: Re = { t: "seq", items: [x, star({ t: "seq", items: [{ t: "set", ranges: p2 }, plus(t2.ranges)] }), y] };
    return min === 1 ? once : opt(once);
  }
  return undefined;
}

/** `re` with every loop a rule fits rewritten (inner ones first); an alternative that is empty becomes an option. */
export function rewriteLoops(re: Re): Re {
  switch (re.t) {
    case "set":
      return re;
    case "seq":
      return { t: "seq", items: re.items.map(rewriteLoops) };
    case "alt": {
      const items = re.items.map(rewriteLoops);
      const empty = (i: Re) => i.t === "seq" && i.items.length === 0;
      // `(|X)` is `X?`: the repetition rules (`(X?)*` is `X*`) then see it.
      if (items.some(empty) && !items.every(empty)) {
        const rest = items.filter((i) => !empty(i));
        return opt(rest.length === 1 ? rest[0]! : { t: "alt", items: rest });
      }
      return { t: "alt", items };
    }
    case "rep": {
      const item = rewriteLoops(re.item);
      const body = item.t === "seq" && item.items.length === 1 ? item.items[0]! : item;
      return (re.max === undefined ? loop(body, re.min) : undefined) ?? { ...re, item: body };
    }
  }
}
