// Owns: the closing of a call under the semantic state: the grammar's shortest closing, but wherever one of its
// tokens would complete a key the object already has (or open a member no new key can follow), another allowed token
// is taken instead and the closing walked again from there. So a closing that must still write members (a minimum
// count the grammar holds) writes distinct keys, and the budget guard's cost counts them.

import { listedTokens, type Matcher } from "../matcher.js";
import type { KeyTracker, KeyVocab } from "./key-guard.js";

/** Most times one closing walk turns aside from the matcher's closing (each turn adds at least one character). */
const MAX_DETOURS = 256;
/** Characters tried, in order, to lengthen a key that would repeat (where the grammar lists no small set). */
const KEY_CHARS = [..."abcdefghijklmnopqrstuvwxyz0123456789_"];

/**
 * Tokens that complete the current call from `grammar`'s position without completing a key twice (nothing is
 * accepted into `grammar` or fed to `state`); undefined when none was found. `keep` may keep the answer of the walk
 * that turns aside from repeats (the costly part) for the next ask at the same position and state.
 */
export function distinctClosing(grammar: Matcher, state: KeyTracker, vocab: KeyVocab, keep = (walk: () => number[] | undefined) => walk()): number[] | undefined {
  const plain = grammar.closing();
  if (!plain) return undefined;
  // Most closings repeat nothing: one fed whole to a copy of the state without completing a key or an item twice is
  // the answer, with no look-ahead per token (the budget guard asks for a closing at every step).
  const copy = state.clone();
  if (!plain.some((t) => copy.feed(vocab.texts[t] ?? ""))) return plain;
  return keep(() => closingWithDetours(grammar, state, vocab));
}

/** The closing walked token by token, turning aside wherever the state bans the closing's next token. */
function closingWithDetours(grammar: Matcher, state: KeyTracker, vocab: KeyVocab): number[] | undefined {
  const fork = grammar.fork();
  const keys = state.clone();
  const out: number[] = [];
  for (let turns = 0; turns <= MAX_DETOURS; turns++) {
    const plain = fork.closing();
    if (!plain) return undefined;
    let turned = false;
    for (const t of plain) {
      const take = keys.banned(fork, [t]).length > 0 ? detour(fork, keys, vocab) : t;
      if (take === undefined || !fork.accept(take)) return undefined;
      keys.feed(vocab.texts[take] ?? "");
      out.push(take);
      if (take !== t) {
        turned = true;
        break;
      }
    }
    if (!turned) return out;
  }
  return undefined;
}

/**
 * An allowed token the state does not ban, in place of one it does: a key lengthened, or another way on. Candidates
 * are judged one at a time, in order of preference, until one passes (judging the whole allowed set first cost the
 * uniqueItems closings most of their time).
 */
function detour(fork: Matcher, keys: KeyTracker, vocab: KeyVocab): number | undefined {
  const free = (t: number) => fork.canBeNext(t) && keys.banned(fork, [t]).length === 0;
  // A key's next character first (the shortest way to a new key), then anything but a separator, then a separator.
  // The grammar judges each character alone: its whole mask at a state the walk has not seen cost most of a detour.
  for (const ch of KEY_CHARS) for (const t of vocab.exactly(ch)) if (free(t)) return t;
  const listed = listedTokens(fork.nextTokens()) ?? [];
  let separator: number | undefined;
  for (const t of listed) {
    if (!(vocab.texts[t] ?? "").startsWith(",")) {
      if (free(t)) return t;
    } else if (separator === undefined && free(t)) separator = t;
  }
  return separator;
}
