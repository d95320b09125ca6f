// Owns: which tokens must not come next in an array whose items must be distinct (uniqueItems): those that complete
// an item the array has already, and those after which the grammar lets the item end only as one it has (a
// look-ahead over the grammar's small allowed sets, as the key guard looks ahead for keys).

import { valueKey } from "../../grammar/schema-nodes.js";
import { listedTokens, type NextTokens } from "../matcher.js";

/** An array's items so far, where they must be distinct: completed ones (canonical values, spellings) and the open one. */
export interface Items {
  /** Replaced, never changed (copies of the guard share them). */
  values: ReadonlySet<string>;
  texts: readonly string[];
  item: string;
  /** The spellings the items may take, where the schema lists them (the grammar spells each one way). */
  literals?: readonly string[];
}

/** What the judge asks of the semantic guard (KeyGuard): token texts, copies to feed, and an array's items. */
interface ItemGuard {
  readonly vocab: { readonly texts: readonly string[]; exactly(text: string): readonly number[]; startingWith(prefix: string): number[] };
  clone(): ItemGuard;
  feed(text: string): boolean;
  itemsAt(depth: number): Items | undefined;
}

/** What it asks of the grammar's matcher: forks to look ahead with. */
interface ItemProbe {
  fork(): ItemProbe;
  accept(token: number): boolean;
  canBeNext(token: number): boolean;
  nextTokens(): NextTokens;
}

/** Most grammar states one look-ahead visits (past this, the item is assumed able to differ). */
const LOOKAHEAD_STATES = 256;

interface Watch {
  depth: number;
  /** Items completed when the look-ahead began: one more, or the array closed, ends the item. */
  count: number;
  texts: readonly string[];
}

interface Look {
  states: number;
  memo: Map<string, boolean>;
}

/**
 * Item keys by text, remembered: a look-ahead completes the same few items again and again. Bounded: short texts
 * only, and cleared when full.
 */
const itemKeys = new Map<string, string>();
const ITEM_KEYS = 4096;
const ITEM_KEY_CHARS = 256;

/** An item's text to a key equal for equal JSON values (`1` and `1.0`, key order ignored); the text where it does not parse. */
export function itemKey(text: string): string {
  let key = itemKeys.get(text);
  if (key !== undefined) return key;
  try {
    key = valueKey(JSON.parse(text));
  } catch {
    key = `text:${text}`;
  }
  if (text.length > ITEM_KEY_CHARS) return key;
  if (itemKeys.size >= ITEM_KEYS) itemKeys.clear();
  itemKeys.set(text, key);
  return key;
}

/**
 * Tokens to ban in the array at `watched`: each candidate is judged where the grammar's allowed set is small; for
 * free text (no candidates), only the tokens that spell on toward an item the array has are judged.
 */
export function bannedItems(guard: ItemGuard, watched: { depth: number; items: Items }, probe: ItemProbe, candidates: readonly number[] | undefined): number[] {
  const w: Watch = { depth: watched.depth, count: watched.items.texts.length, texts: watched.items.texts };
  const look: Look = { states: 0, memo: new Map() };
  const { literals } = watched.items;
  const ok = literals ? (t: number) => literalGoesOn(guard, t, w, literals) : (t: number) => itemGoesOn(guard, probe, t, w, look);
  if (candidates) return candidates.filter((t) => !ok(t));
  const partial = watched.items.item.trimStart();
  const suspects = new Set<number>();
  for (const text of w.texts) {
    if (!text.startsWith(partial)) continue;
    const rest = text.slice(partial.length);
    for (const t of guard.vocab.startingWith(rest)) suspects.add(t);
    for (let n = 1; n < rest.length; n++) for (const t of guard.vocab.exactly(rest.slice(0, n))) suspects.add(t);
  }
  return [...suspects].filter((t) => !ok(t));
}

/**
 * Items from a list of literal values: after `token`, the open item must still begin one the array lacks (every
 * value's spelling is known, so no look-ahead through the grammar is needed).
 */
function literalGoesOn(guard: ItemGuard, token: number, w: Watch, literals: readonly string[]): boolean {
  const after = guard.clone();
  if (after.feed(guard.vocab.texts[token] ?? "")) return false;
  const items = after.itemsAt(w.depth);
  if (!items || items.texts.length !== w.count) return true;
  const partial = items.item.trimStart();
  const keys = literalKeys(literals);
  return literals.some((l, i) => l.startsWith(partial) && !items.values.has(keys[i]!));
}

const keysOfLiterals = new WeakMap<readonly string[], string[]>();

/** Each literal's item key, once per list (a plan's lists live as long as its compiled grammar). */
function literalKeys(literals: readonly string[]): readonly string[] {
  let keys = keysOfLiterals.get(literals);
  if (!keys) keysOfLiterals.set(literals, (keys = literals.map(itemKey)));
  return keys;
}

/** Whether, after `token`, the array's open item can still end as one it does not have (or ended as such). */
function itemGoesOn(guard: ItemGuard, probe: ItemProbe, token: number, w: Watch, look: Look): boolean {
  const text = guard.vocab.texts[token] ?? "";
  if (!suspect(guard.itemsAt(w.depth)?.item ?? "", text, w)) return true;
  const after = guard.clone();
  if (after.feed(text)) return false;
  const items = after.itemsAt(w.depth);
  if (!items || items.texts.length !== w.count) return true;
  if (!spelledLikeOne(items.item, w)) return true;
  const fork = probe.fork();
  if (!fork.accept(token)) return true;
  return anyNewItem(after, fork, w, look);
}

/** Depth-first over the grammar's small allowed sets: can the open item end as one the array lacks? */
function anyNewItem(guard: ItemGuard, probe: ItemProbe, w: Watch, look: Look): boolean {
  const partial = guard.itemsAt(w.depth)?.item ?? "";
  const known = look.memo.get(partial);
  if (known !== undefined) return known;
  if (++look.states > LOOKAHEAD_STATES) return true;
  // A loop back to this text (whitespace) finds nothing new on the way.
  look.memo.set(partial, false);
  if (escapes(guard, probe, w)) {
    look.memo.set(partial, true);
    return true;
  }
  const listed = listedTokens(probe.nextTokens());
  // Free text: a character apart from every item written is there to take.
  const viable = !listed || listed.some((t) => itemGoesOn(guard, probe, t, w, look));
  look.memo.set(partial, viable);
  return viable;
}

/**
 * Characters tried before the grammar's mask is asked for: one that the grammar takes here and that spells the item
 * apart from every item the array has settles the look-ahead. In free text the mask at a state the walk had not
 * seen cost most of the look-ahead (941 of 2,028 ms of the state's time over the uniqueItems row's walks); where the
 * grammar lists a few tokens its mask is cheap, so few characters are tried (36 cost more than the masks they saved).
 */
const ESCAPE_CHARS = [..."ax0"];

/** Whether a one-character token the grammar takes here leaves the open item spelled unlike every item (so it can differ). */
function escapes(guard: ItemGuard, probe: ItemProbe, w: Watch): boolean {
  const item = guard.itemsAt(w.depth)?.item ?? "";
  for (const ch of ESCAPE_CHARS) {
    if (suspect(item, ch, w)) continue;
    for (const t of guard.vocab.exactly(ch)) if (probe.canBeNext(t)) return true;
  }
  return false;
}

/** Characters after which an item may be complete (its value then compared, whatever its spelling). */
const MAY_END = /[,\]}"\s]/;

/**
 * Whether a token needs judging: it may complete the item (a repeat may be spelled another way: `1.0`, keys in
 * another order), or the item it leaves is spelled like the start of one the array has. Any other token spells an
 * item apart from all of them, and most tokens at most positions are such.
 */
function suspect(item: string, text: string, w: Watch): boolean {
  if (MAY_END.test(text)) return true;
  const after = (item + text).trimStart();
  return w.texts.some((t) => t.startsWith(after) || after.startsWith(t));
}

/** Whether the open item, as spelled so far, begins some item the array has (else its value is already another). */
function spelledLikeOne(item: string, w: Watch): boolean {
  const partial = item.trimStart();
  return w.texts.some((t) => t.startsWith(partial));
}
