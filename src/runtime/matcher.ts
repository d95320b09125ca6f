// Owns: GrammarMatcher, the grammar state of one sequence in one turn (xgrammar's GrammarMatcher): accept forced
// tokens, the allowed next set where it is small, the forced continuation (jump-forward), fork, and the tokens it
// takes to close the current call. Built from a CompiledGrammar, which carries its special tokens and close tag.
// Sampled tokens are the exception: llama.cpp's sampler accepts them into `state` itself.

import type { LlamaGrammarEvaluationState } from "node-llama-cpp";
import type { EngineVocab } from "../engine/engine-vocab.js";
import { planTokens } from "../engine/jump-forward.js";
import type { Continuation, Matcher, MatcherGrammar, NextTokens } from "../engine/matcher.js";
import type { TokenTables } from "../engine/token-tables.js";
import type { AllowedNext } from "./allowed-next.js";
import { acceptForced, canBeNext, type GrammarStates } from "./grammar-state.js";
import { ContinuationProber } from "./jump-forward.js";

/** Most steps a closing walk takes (characters and tags). */
const CLOSURE_MAX_STEPS = 4096;

/** Letters every free-text position inside a call allows and no structural position does (a name, a number). */
const TEXT_PROBES = ["a", "e"];

/** The per-model things every matcher of a runtime shares. */
export interface MatcherEnv {
  states: GrammarStates;
  tables: TokenTables;
  /** Finds small allowed sets; undefined when the vocabulary is not byte-level. */
  allowedNext: AllowedNext | undefined;
  /** Canonical tokens of forced text: plain text, never an added token (property names come from clients). */
  tokenize(text: string): number[];
  /** The qtc constraint engine's view of the vocabulary; set when the runtime uses that engine. Default: none (llama.cpp). */
  engine?: EngineVocab;
}

/**
 * The grammar state of one sequence in one turn, as the Turn uses it: llama.cpp's (GrammarMatcher, whose native
 * sampler advances `state`) or the qtc engine's (QtcMatcher, src/engine/, no native state). Neither the Turn nor
 * llama.cpp's state rolls back, so the engine's rollback is not asked for here.
 */
export interface TurnMatcher extends Omit<Matcher, "fork" | "rollback"> {
  /** True when the native sampler holds the grammar (`state`) and accepts sampled tokens itself. */
  readonly native: boolean;
  readonly state: LlamaGrammarEvaluationState | undefined;
  fork(): TurnMatcher;
}

/** What a matcher and its forks share: derived once from the grammar and the vocabulary. */
interface Shared {
  env: MatcherEnv;
  grammar: MatcherGrammar;
  prober: ContinuationProber;
  /** The special tokens the grammar names and every end-of-generation token: the allowed set must offer each. */
  specials: readonly number[];
  /** Token sequences that may close a value (each closer's bytes), then the close tag alone. */
  closers: readonly (readonly number[])[];
  textProbes: readonly number[];
}

function share(grammar: MatcherGrammar, env: MatcherEnv): Shared {
  const bytes = env.tables.byteTokens;
  const asBytes = (text: string) => [...Buffer.from(text, "utf8")].map((b) => bytes![b]!);
  return {
    env,
    grammar,
    // The prober asks "may it end here?" with one end-of-generation token (several would never be "the only
    // continuation"); the narrowed sampler must offer every one the grammar allows.
    prober: new ContinuationProber(env.tables, grammar.specialTokens, grammar.gbnf),
    specials: [...new Set([...grammar.specialTokens, ...env.tables.eogTokens])],
    closers: bytes ? [...grammar.valueClosers.map(asBytes), [grammar.closeToken]] : [],
    textProbes: TEXT_PROBES.map((c) => bytes?.[c.charCodeAt(0)]).filter((t): t is number => t !== undefined),
  };
}

export class GrammarMatcher implements TurnMatcher {
  /** Milliseconds of grammar work done through this matcher, its creation included (a fork counts its own). */
  ms = 0;
  readonly native = true;

  private constructor(
    private readonly current: LlamaGrammarEvaluationState,
    private readonly shared: Shared,
  ) {}

  /** A matcher at the grammar's start. Throws when llama.cpp rejects the GBNF. */
  static async create(grammar: MatcherGrammar, env: MatcherEnv): Promise<GrammarMatcher> {
    const t0 = performance.now();
    const matcher = new GrammarMatcher(await env.states.stateFor(grammar.gbnf), share(grammar, env));
    matcher.ms += performance.now() - t0;
    return matcher;
  }

  /** The llama.cpp state, for the native sampler (which accepts each sampled token into it). */
  get state(): LlamaGrammarEvaluationState {
    return this.current;
  }

  get grammar(): MatcherGrammar {
    return this.shared.grammar;
  }

  /** Whether `token` may come next (for an end-of-generation token: whether the grammar may end here). */
  canBeNext(token: number): boolean {
    return canBeNext(this.current, token);
  }

  /** A sampled token: llama.cpp's sampler already accepted it into `state`. */
  takeSampled(token: number): number[] {
    return [token];
  }

  /** Advance past a token fed without sampling; false when the grammar rejects it (the matcher is then unusable). */
  accept(token: number): boolean {
    return acceptForced(this.current, token);
  }

  /** Accept tokens in order up to the first one the grammar rejects; returns those accepted. */
  acceptAll(tokens: readonly number[]): number[] {
    return this.timed(() => {
      const accepted: number[] = [];
      for (const token of tokens) {
        if (!acceptForced(this.current, token)) break;
        accepted.push(token);
      }
      return accepted;
    });
  }

  /**
   * The allowed next tokens, where finding them costs less than llama.cpp's full-vocabulary pass over a rejected
   * sample: free text is reported as such, structure (names, numbers, tags) as the exact set.
   */
  nextTokens(): NextTokens {
    return this.timed(() => {
      const { textProbes, env, specials } = this.shared;
      if (textProbes.length > 0 && textProbes.every((t) => canBeNext(this.current, t))) return { kind: "text" };
      const allowed = env.allowedNext?.find(this.current, specials);
      return allowed && allowed.length > 0 ? { kind: "set", tokens: allowed } : { kind: "wide" };
    });
  }

  /** The canonical tokens of the text the grammar forces from here, at most `maxSteps` steps (not accepted). */
  forcedContinuation(maxSteps: number): Continuation {
    return this.timed(() => {
      const { prober, env } = this.shared;
      if (!prober.usable) return { tokens: [], ends: false };
      return planTokens(prober.forcedRun(this.current, maxSteps), env.tokenize);
    });
  }

  /**
   * Tokens that complete the current call from here (not accepted): forced text, and at each free position the
   * first value closer the grammar takes, up to the close tag. Its length is the cost to close. Undefined when
   * no closing was found (or the vocabulary is not byte-level).
   */
  closing(): number[] | undefined {
    return this.timed(() => {
      const { prober, closers, grammar, env } = this.shared;
      const run = prober.closure(this.current, closers, grammar.closeToken, CLOSURE_MAX_STEPS);
      return run && planTokens(run, env.tokenize).tokens;
    });
  }

  /** An independent matcher at the same position. */
  fork(): GrammarMatcher {
    return new GrammarMatcher(this.current.clone(), this.shared);
  }

  private timed<T>(work: () => T): T {
    const t0 = performance.now();
    try {
      return work();
    } finally {
      this.ms += performance.now() - t0;
    }
  }
}
