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
 * accepted into `grammar` or fed to `state`); undefined when none was found.
 */
export function distinctClosing(grammar: Matcher, state: KeyTracker, vocab: KeyVocab): number[] | undefined {
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

/** An allowed token the state does not ban, in place of one it does: a key lengthened, or another way on. */
function detour(fork: Matcher, keys: KeyTracker, vocab: KeyVocab): number | undefined {
  const next = fork.nextTokens();
  const listed = listedTokens(next) ?? [];
  const banned = new Set(listed.length > 0 ? keys.banned(fork, listed) : []);
  const allowed = (t: number) => fork.canBeNext(t) && !banned.has(t) && keys.banned(fork, [t]).length === 0;
  // A key's next character first (the shortest way to a new key), then anything but a separator.
  for (const ch of KEY_CHARS) for (const t of vocab.exactly(ch)) if ((listed.length === 0 || listed.includes(t)) && allowed(t)) return t;
  const others = listed.filter((t) => !banned.has(t));
  return others.find((t) => !(vocab.texts[t] ?? "").startsWith(",")) ?? others[0];
}
