// Owns: the closing of a call under the key guard: the matcher's shortest closing, but wherever one of its tokens
// would complete a key the object already has (or open a member no new key can follow), another allowed token is
// taken instead and the closing walked again from there. So a closing that must still write members (a minimum
// count the grammar holds) writes distinct keys, and the budget guard's cost counts them.

import type { Closable } from "./budget-guard.js";
import { listedTokens } from "../engine/matcher.js";
import type { TurnMatcher } from "./matcher.js";
import type { KeyTracker, KeyVocab } from "./semantic-guard.js";

/** Most times one closing walk turns aside from the matcher's closing (each turn adds at least one character). */
const MAX_DETOURS = 256;
/** Characters tried, in order, to lengthen a key that would repeat (where the grammar lists no small set). */
const KEY_CHARS = [..."abcdefghijklmnopqrstuvwxyz0123456789_"];

export class DistinctClosing implements Closable {
  constructor(
    private readonly matcher: TurnMatcher,
    private readonly keys: KeyTracker,
    private readonly vocab: KeyVocab,
  ) {}

  /** Tokens that complete the current call without completing a key twice (not accepted); undefined when none was found. */
  closing(): readonly number[] | undefined {
    const fork = this.matcher.fork();
    const keys = this.keys.clone();
    const out: number[] = [];
    for (let detour = 0; detour <= MAX_DETOURS; detour++) {
      const plain = fork.closing();
      if (!plain) return undefined;
      let turned = false;
      for (const t of plain) {
        const take = keys.banned(fork, [t]).length > 0 ? this.detour(fork, keys) : t;
        if (take === undefined || !fork.accept(take)) return undefined;
        keys.feed(this.vocab.texts[take] ?? "");
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

  acceptAll(tokens: readonly number[]): number[] {
    return this.matcher.acceptAll(tokens);
  }

  /** An allowed token the key guard does not ban, in place of one it does: a key lengthened, or another way on. */
  private detour(fork: TurnMatcher, keys: KeyTracker): number | undefined {
    const next = fork.nextTokens();
    const listed = listedTokens(next) ?? [];
    const banned = new Set(listed.length > 0 ? keys.banned(fork, listed) : []);
    const allowed = (t: number) => fork.canBeNext(t) && !banned.has(t) && keys.banned(fork, [t]).length === 0;
    // A key's next character first (the shortest way to a new key), then anything but a separator.
    for (const ch of KEY_CHARS) for (const t of this.vocab.exactly(ch)) if ((listed.length === 0 || listed.includes(t)) && allowed(t)) return t;
    const others = listed.filter((t) => !banned.has(t));
    return others.find((t) => !(this.vocab.texts[t] ?? "").startsWith(",")) ?? others[0];
  }
}
