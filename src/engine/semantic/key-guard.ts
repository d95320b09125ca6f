// Owns: the semantic state of a JSON call body (hermes) or JSON argument, the part of the engine's matcher a
// context-free grammar cannot hold: per open object the keys already completed, per array whose items must be
// distinct the items already completed (distinct-items.ts judges those). Fed the call's text as its tokens are
// accepted (SemanticMatcher reads them by their bytes), it answers which candidate tokens must not come next because
// they would complete a key or an item a second time, or lead only to one.

import { literalItems, mustBeDistinct, shapesAtItem, shapesAtKey, type UniquePlan } from "../../grammar/index.js";
import { bannedItems, itemKey, type Items } from "./distinct-items.js";
import { listedTokens, type NextTokens } from "../matcher.js";

/** What the state asks of the grammar matcher (the engine's Matcher has this shape): forks to look ahead with. */
export interface KeyProbe {
  fork(): KeyProbe;
  /** Advance past a token; false when the grammar rejects it. */
  accept(token: number): boolean;
  /** Whether the grammar takes the token next (nothing is accepted). */
  canBeNext(token: number): boolean;
  nextTokens(): NextTokens;
  forcedContinuation(maxSteps: number): { tokens: number[] };
}

/** Most characters a look-ahead spells into a key before it assumes the key can still differ. */
const LOOKAHEAD_CHARS = 48;
/** Most grammar states one look-ahead visits (a key space larger than this is assumed to hold a new key). */
const LOOKAHEAD_STATES = 256;
/** The characters a key's look-ahead tries first (see KeyGuard.leavesSeenKeys): the closing quote, then a few others. */
const KEY_EXITS = [...'"ax0'];

/** One look-ahead's state: grammar states visited, and the verdict per partial key. */
interface Look {
  states: number;
  memo: Map<string, boolean>;
}

const newLook = (): Look => ({ states: 0, memo: new Map() });

/** Whether some key of `keys` begins with `partial`. */
function startsAny(keys: ReadonlySet<string>, partial: string): boolean {
  for (const k of keys) if (k.startsWith(partial)) return true;
  return false;
}

/** Per-vocabulary lookups the guard shares across turns (built once per runtime). */
export class KeyVocab {
  /** Token ids by their exact text (first id of each text). */
  private readonly byText = new Map<string, number[]>();
  /** Tokens that hold a `"`, by the text before their first `"`. */
  private readonly byTextBeforeQuote = new Map<string, number[]>();

  /** Quotes in each token that holds two or more. */
  private readonly quoteCounts = new Map<number, number>();
  /** Those tokens by each text between two of their quotes. */
  private readonly bySpan = new Map<string, number[]>();
  /** Those of them with a `\\` (see wholeKeySuspects). */
  private readonly escaping: number[] = [];

  constructor(readonly texts: readonly string[]) {
    texts.forEach((text, id) => {
      if (text === "" || text.includes("\uFFFD")) return;
      push(this.byText, text, id);
      const q = text.indexOf('"');
      if (q < 0) return;
      push(this.byTextBeforeQuote, text.slice(0, q), id);
      const parts = text.split('"');
      if (parts.length < 3) return;
      this.quoteCounts.set(id, parts.length - 1);
      for (const span of new Set(parts.slice(1, -1))) push(this.bySpan, span, id);
      if (parts.some((p) => p.includes("\\"))) this.escaping.push(id);
    });
    this.sorted = [...this.byText.keys()].sort();
  }

  /**
   * Tokens that might spell a whole key of one of `objects` in one, from inside a string (`inString`: they need a quote more
   * to close it first): those with the key's spelling between two of their quotes, or with a `\\` anywhere when a key
   * holds one (a split at an escaped quote would hide it).
   */
  wholeKeySuspects(objects: readonly ReadonlySet<string>[], inString: boolean): number[] {
    const quotes = inString ? 3 : 2;
    const out: number[] = [];
    const add = (t: number) => {
      if (this.quoteCounts.get(t)! >= quotes && !out.includes(t)) out.push(t);
    };
    let escaped = false;
    for (const keys of objects) {
      for (const key of keys) {
        this.bySpan.get(key)?.forEach(add);
        escaped ||= key.includes("\\");
      }
    }
    if (escaped) this.escaping.forEach(add);
    return out;
  }

  /** Tokens whose whole text is `text`. */
  exactly(text: string): readonly number[] {
    return this.byText.get(text) ?? [];
  }

  /** Tokens that spell `text` and then a `"` (and maybe more). */
  closingAfter(text: string): readonly number[] {
    return this.byTextBeforeQuote.get(text) ?? [];
  }

  /** Tokens whose text begins with `prefix` (at most `limit`). */
  startingWith(prefix: string, limit = 4096): number[] {
    const sorted = this.sorted;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out: number[] = [];
    for (let i = lo; i < sorted.length && sorted[i]!.startsWith(prefix) && out.length < limit; i++) out.push(...this.byText.get(sorted[i]!)!);
    return out;
  }

  /**
   * The texts, sorted (UTF-16 code units, as `<` compares them), built with the vocabulary's other indexes by the
   * native sort: 77 ms on Qwen3's vocabulary. Built on first use with a comparator in JS, it took 385 ms inside the
   * first mask of an array of distinct strings.
   */
  private readonly sorted: readonly string[];
}

function push(map: Map<string, number[]>, key: string, id: number): void {
  const list = map.get(key);
  if (list) list.push(id);
  else map.set(key, [id]);
}

/** What the turn asks of a key guard, whatever the format: feed it the call's text, ask for bans, copy it. */
export interface KeyTracker {
  /** Feed the text of accepted tokens, in order; true when it completed a key or an item a second time. */
  feed(text: string): boolean;
  banned(probe: KeyProbe, candidates: readonly number[] | undefined): number[];
  /**
   * Whether `banned` can ban anything here: an open object has a key, or an array of distinct items has an item.
   * Where not, a caller skips it (and listing the allowed tokens for it).
   */
  readonly mayBan: boolean;
  clone(): KeyTracker;
  /** The state as text: two trackers with the same fingerprint feed, ban and close alike. */
  fingerprint(): string;
  /**
   * Inside a string whose spelling is compared with earlier ones: a key of an object that has one already, or a
   * string in an item of an array whose items must be distinct and that has one already.
   */
  readonly comparing: boolean;
}

/**
 * Where a guard finds which arrays must hold distinct items (see unique-plan.ts): none, one value's, or a call's
 * (its plans by tool name; the name and arguments keys as a JSON text spells them, escapes included).
 */
export type UniqueRoots =
  | { readonly kind: "value"; readonly plan: UniquePlan; readonly shapes: readonly number[] }
  | { readonly kind: "call"; readonly plans: ReadonlyMap<string, UniquePlan>; readonly nameKey: string; readonly argumentsKey: string };

interface Frame {
  /** Keys completed in this object (raw JSON spelling; the grammar admits one spelling per key); undefined for arrays. Replaced, never changed. */
  keys: ReadonlySet<string> | undefined;
  expectKey: boolean;
  /** The last key completed in this object (raw spelling): its value comes next. */
  key?: string;
  /** Items begun in this array before the current one. */
  index: number;
  /** The plan and this value's shapes in it, where an array of distinct items may lie at or below it. */
  plan?: UniquePlan;
  shapes?: readonly number[];
  /** In an array whose items must be distinct. */
  items?: Items;
  /** The call object of a JSON call body (under "call" roots), and the tool it names once its name is written. */
  call?: { name?: string };
}

/**
 * A frame for a copy of the guard: key and item sets are replaced, never changed, so they are shared (look-aheads copy
 * often). Written out field by field, every frame one shape: spreading them was the largest self time under the
 * uniqueItems closing's look-aheads (12 of 80 ms).
 */
function copyFrame(f: Frame): Frame {
  return { keys: f.keys, expectKey: f.expectKey, key: f.key, index: f.index, plan: f.plan, shapes: f.shapes, items: f.items && { ...f.items }, call: f.call && { ...f.call } };
}

/**
 * Tracks JSON structure from the call's text and answers which tokens would repeat a key. Keys are compared
 * as spelled: qtc's grammars admit one spelling per character (no `\u` escapes, no `\/`), so equal spellings
 * are equal keys.
 */
export class KeyGuard implements KeyTracker {
  private readonly stack: Frame[] = [];
  /** Inside a string: whether it is a key, its raw text so far, and whether the last character was a lone `\`. */
  private str: { key: boolean; text: string; escaped: boolean } | undefined;

  constructor(
    readonly vocab: KeyVocab,
    private readonly unique?: UniqueRoots,
  ) {}

  /** An independent guard at the same point (for a look-ahead that feeds text it may not keep). */
  clone(): KeyGuard {
    const copy = new KeyGuard(this.vocab, this.unique);
    for (const f of this.stack) copy.stack.push(copyFrame(f));
    copy.str = this.str && { ...this.str };
    return copy;
  }

  feed(text: string): boolean {
    let repeated = false;
    for (const ch of text) repeated = this.step(ch) || repeated;
    return repeated;
  }

  fingerprint(): string {
    // A frame's plan follows from the call's name (in the root frame) and the path down to it, so its shapes stand for it.
    const frames = this.stack.map((f) => [f.keys ? [...f.keys] : 0, f.expectKey, f.key ?? 0, f.index, f.shapes ?? 0, f.items ? [[...f.items.values], f.items.texts, f.items.item] : 0, f.call ? (f.call.name ?? "") : 0]);
    // A string's text matters where it is compared (a key), or names the tool; an item's is in its array's frame.
    // Elsewhere it is left out, so a free-text value's positions share what is kept for them.
    const s = this.str;
    const text = s && (s.key || this.top()?.call) ? s.text : "";
    return JSON.stringify([frames, s ? [s.key, text, s.escaped] : 0]);
  }

  /** Outside every value: no object, array or string open (a JSON value was closed, or none begun). */
  get idle(): boolean {
    return this.stack.length === 0 && this.str === undefined;
  }

  /** Inside an object's key with at least one key already completed in that object. */
  get atKey(): boolean {
    return this.str?.key === true && (this.top()?.keys?.size ?? 0) > 0;
  }

  get mayBan(): boolean {
    return this.stack.some((f) => (f.keys?.size ?? 0) > 0) || this.watched() !== undefined;
  }

  get comparing(): boolean {
    return this.atKey || (this.str !== undefined && this.watched() !== undefined);
  }

  /** The innermost array whose items must be distinct and that has completed one: its depth and items. */
  watched(): { depth: number; items: Items } | undefined {
    // Without a plan no array keeps items: a tool without uniqueItems pays nothing for them.
    if (!this.unique) return undefined;
    for (let d = this.stack.length - 1; d >= 0; d--) {
      const items = this.stack[d]!.items;
      if (items && items.values.size > 0) return { depth: d, items };
    }
    return undefined;
  }

  /** Items completed in the array at `depth`; undefined once that array is closed. */
  itemsAt(depth: number): Items | undefined {
    return this.stack.length > depth ? this.stack[depth]!.items : undefined;
  }

  /** Between members of an object that already has a key (where `,` opens another member). */
  get afterMember(): boolean {
    const top = this.top();
    return this.str === undefined && top?.keys !== undefined && top.keys.size > 0 && !top.expectKey;
  }

  /**
   * Tokens that must not come next: inside a key, those that would complete (here or through the text the grammar
   * then forces) a key the object already has, or lead only to such keys; between members, a `,` after which the
   * grammar admits no new key. `candidates` is the grammar's allowed set when it is small (checked one by one),
   * undefined for free text (only the tokens that could complete a seen key are checked, some of them perhaps
   * outside the grammar's set: banning those changes nothing).
   */
  banned(probe: KeyProbe, candidates: readonly number[] | undefined): number[] {
    // A token that opens and closes a key in one (`" "`, `"a":`) repeats it without ever being inside it; in free
    // text only a token with quotes enough to close the string and spell a whole key can.
    const whole = new Set((candidates ?? this.wholeKeySuspects()).filter((t) => this.repeats(this.vocab.texts[t] ?? "")));
    const rest = whole.size > 0 ? candidates?.filter((t) => !whole.has(t)) : candidates;
    const keys = whole.size > 0 ? [...whole, ...this.bannedInKey(probe, rest)] : this.bannedInKey(probe, candidates);
    const watched = this.watched();
    if (!watched) return keys;
    const out = new Set(keys);
    for (const t of bannedItems(this, watched, probe, rest?.filter((t) => !out.has(t)))) out.add(t);
    return [...out];
  }

  /** In free text, the tokens that might spell a whole key some open object has (see KeyVocab.wholeKeySuspects). */
  private wholeKeySuspects(): number[] {
    const objects: ReadonlySet<string>[] = [];
    for (const f of this.stack) if (f.keys && f.keys.size > 0) objects.push(f.keys);
    return objects.length === 0 ? [] : this.vocab.wholeKeySuspects(objects, this.str !== undefined);
  }

  /** Whether the text completes a key its object already has (only a text with a quote can). */
  private repeats(text: string): boolean {
    return text.includes('"') && this.clone().feed(text);
  }

  private bannedInKey(probe: KeyProbe, candidates: readonly number[] | undefined): number[] {
    if (this.afterMember) return candidates ? this.deadCommas(probe, candidates) : [];
    if (!this.atKey) return [];
    const seen = this.top()!.keys!;
    const partial = this.str!.text;
    const { texts } = this.vocab;
    // Only a key that begins with the text so far can be completed again: with none, nothing is banned (at a key
    // the grammar leaves free, thousands of candidates were each forked and stepped to find that out).
    if (!startsAny(seen, partial)) return [];
    if (candidates) return candidates.filter((t) => !this.viableAfter(probe, t, partial, seen, newLook()));
    const out = new Set<number>();
    for (const key of seen) {
      if (!key.startsWith(partial)) continue;
      const rest = key.slice(partial.length);
      for (const t of this.vocab.closingAfter(rest)) out.add(t);
      // A token that spells a prefix of the rest may leave the grammar only seen keys to complete.
      for (let n = 1; n <= rest.length; n++) {
        for (const t of this.vocab.exactly(rest.slice(0, n))) {
          if (!out.has(t) && texts[t] !== undefined && !this.viableAfter(probe, t, partial, seen, newLook())) out.add(t);
        }
      }
    }
    return [...out];
  }

  /** `,` tokens (in the allowed set) after which every key the grammar admits is one the object has. */
  private deadCommas(probe: KeyProbe, candidates: readonly number[]): number[] {
    const seen = this.top()!.keys!;
    const out: number[] = [];
    for (const t of candidates) {
      const text = this.vocab.texts[t] ?? "";
      if (!text.startsWith(",")) continue;
      const fork = probe.fork();
      if (!fork.accept(t)) continue;
      // The separator and the key's opening quote are usually forced: spell them, then look for a new key.
      let spelled = text;
      for (const f of fork.forcedContinuation(8).tokens) {
        if (spelled.includes('"')) break;
        if (!fork.accept(f)) break;
        spelled += this.vocab.texts[f] ?? "";
      }
      const q = spelled.indexOf('"');
      if (q < 0) continue;
      const after = spelled.slice(q + 1);
      if (after.includes('"')) {
        if (seen.has(after.slice(0, after.indexOf('"')))) out.push(t);
      } else if (!this.anyNewKey(fork, after, seen, newLook())) out.push(t);
    }
    return out;
  }

  /** Whether, after `token` at a key holding `partial`, some key the object does not have can still be completed. */
  private viableAfter(probe: KeyProbe, token: number, partial: string, seen: ReadonlySet<string>, look: Look): boolean {
    const text = this.vocab.texts[token] ?? "";
    const q = text.indexOf('"');
    if (q >= 0) return !seen.has(partial + text.slice(0, q));
    // A key no seen one begins with can still become a new one (anyNewKey's first answer), fork or not.
    if (!startsAny(seen, partial + text)) return true;
    const fork = probe.fork();
    if (!fork.accept(token)) return true;
    return this.anyNewKey(fork, partial + text, seen, look);
  }

  /** Depth-first over the grammar's small allowed sets: can a key the object lacks be completed from here? */
  private anyNewKey(probe: KeyProbe, partial: string, seen: ReadonlySet<string>, look: Look): boolean {
    // A key's grammar state follows from the text spelled since its quote: each partial key is explored once.
    const known = look.memo.get(partial);
    if (known !== undefined) return known;
    if (++look.states > LOOKAHEAD_STATES || partial.length > LOOKAHEAD_CHARS) return true;
    let viable = true;
    if (startsAny(seen, partial) && !this.leavesSeenKeys(probe, partial, seen)) {
      const listed = listedTokens(probe.nextTokens());
      viable = !listed || listed.some((t) => this.viableAfter(probe, t, partial, seen, look));
    }
    look.memo.set(partial, viable);
    return viable;
  }

  /**
   * Whether a one-character token the grammar takes here ends or spells the key apart from every key the object has
   * (so a new key can still be completed: viableAfter's answer for it), tried before the grammar's mask is asked for.
   * In an open object the key is free text, whose mask at a state the look-ahead had not seen walked the whole
   * vocabulary: most of the semantic state's time on the MaskBench sample's open objects.
   */
  private leavesSeenKeys(probe: KeyProbe, partial: string, seen: ReadonlySet<string>): boolean {
    for (const ch of KEY_EXITS) {
      const apart = ch === '"' ? !seen.has(partial) : !startsAny(seen, partial + ch);
      if (apart && this.vocab.exactly(ch).some((t) => probe.canBeNext(t))) return true;
    }
    return false;
  }

  private top(): Frame | undefined {
    return this.stack[this.stack.length - 1];
  }

  /** One character; true when it completes a key or an item a second time. */
  private step(ch: string): boolean {
    const s = this.str;
    if (s) {
      this.addToItems(ch, -1);
      if (s.escaped) {
        s.text += ch;
        s.escaped = false;
      } else if (ch === "\\") {
        s.text += ch;
        s.escaped = true;
      } else if (ch === '"') return this.closeString(s);
      else s.text += ch;
      return false;
    }
    const top = this.top();
    if (ch === '"') {
      const key = top?.keys !== undefined && top.expectKey;
      if (key) top.expectKey = false;
      this.str = { key, text: "", escaped: false };
    } else if (ch === "{" || ch === "[") {
      this.addToItems(ch, -1);
      this.stack.push(this.child(ch === "{"));
      return false;
    } else if (ch === "}" || ch === "]") {
      const repeated = ch === "]" && top?.items ? finishItem(top.items) : false;
      this.stack.pop();
      this.addToItems(ch, -1);
      return repeated;
    } else if (ch === "," && top) {
      if (top.keys) top.expectKey = true;
      else {
        top.index++;
        const repeated = top.items ? finishItem(top.items) : false;
        this.addToItems(ch, this.stack.length - 1);
        return repeated;
      }
    }
    this.addToItems(ch, -1);
    return false;
  }

  private closeString(s: { key: boolean; text: string }): boolean {
    this.str = undefined;
    const top = this.top();
    if (s.key) {
      const keys = top?.keys;
      const repeated = keys?.has(s.text) ?? false;
      if (top) {
        if (keys) top.keys = new Set(keys).add(s.text);
        top.key = s.text;
      }
      return repeated;
    }
    if (top?.call && this.unique?.kind === "call" && top.key === this.unique.nameKey) top.call.name = unquote(s.text);
    return false;
  }

  /** The frame of a value that opens here: its place in the plan, and its items where they must be distinct. */
  private child(object: boolean): Frame {
    // Every field written, in copyFrame's order: frames stay one shape.
    const frame: Frame = { keys: object ? new Set() : undefined, expectKey: object, key: undefined, index: 0, plan: undefined, shapes: undefined, items: undefined, call: undefined };
    const at = this.placeOfChild();
    if (!at && this.stack.length === 0 && object && this.unique?.kind === "call") frame.call = {};
    if (at && at.shapes.length > 0) {
      frame.plan = at.plan;
      frame.shapes = at.shapes;
      const literals = object ? undefined : literalItems(at.plan, at.shapes);
      if (!object && mustBeDistinct(at.plan, at.shapes)) frame.items = { values: new Set(), texts: [], item: "", ...(literals ? { literals } : {}) };
    }
    return frame;
  }

  private placeOfChild(): { plan: UniquePlan; shapes: readonly number[] } | undefined {
    const roots = this.unique;
    const top = this.top();
    if (!roots) return undefined;
    if (!top) return roots.kind === "value" ? roots : undefined;
    if (top.call && roots.kind === "call") {
      const plan = top.key === roots.argumentsKey && top.call.name !== undefined ? roots.plans.get(top.call.name) : undefined;
      return plan && { plan, shapes: plan.root };
    }
    if (!top.plan || !top.shapes) return undefined;
    const shapes = top.keys ? (top.key === undefined ? [] : shapesAtKey(top.plan, top.shapes, unquote(top.key))) : shapesAtItem(top.plan, top.shapes, top.index);
    return { plan: top.plan, shapes };
  }

  /** A character of the text into the open item of every array of distinct items it lies in (not `except`'s own). */
  private addToItems(ch: string, except: number): void {
    if (!this.unique) return;
    for (let d = 0; d < this.stack.length; d++) {
      const items = this.stack[d]!.items;
      if (items && d !== except) items.item += ch;
    }
  }
}

/** Complete the open item: true when its value is one the array has already. */
function finishItem(items: Items): boolean {
  const text = items.item.trim();
  items.item = "";
  if (text === "") return false;
  const key = itemKey(text);
  const repeated = items.values.has(key);
  items.values = new Set(items.values).add(key);
  items.texts = [...items.texts, text];
  return repeated;
}

/** A key or string as written (JSON escapes) to its value; the raw text where it does not parse. */
function unquote(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}
