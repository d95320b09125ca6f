// Owns: how MaskBench checks an instance against a compiled schema: the way the runtime constrains a call (qtc's
// own engine, QtcMatcher, with the runtime's key guard beside it, token by token; the default), or with the
// grammar alone (the engine's GrammarChecker; `--checker grammar`, for comparison).

import type { LlamaModel } from "node-llama-cpp";
import { GrammarChecker, modelVocab } from "../../dist/model/grammar-checker.js";
import type { CompiledSchema } from "../../dist/grammar/types.js";
import type { EngineVocab } from "../../dist/engine/engine-vocab.js";
import { listedTokens } from "../../dist/engine/matcher.js";
import { createQtcMatcher, type QtcMatcher } from "../../dist/engine/qtc-matcher.js";
import { KeyGuard, KeyVocab } from "../../dist/runtime/semantic-guard.js";

/** `qtc`: the runtime's engine and key guard (the default); `grammar`: the same engine, the grammar alone. */
export type CheckerId = "qtc" | "grammar";
export const CHECKERS: readonly CheckerId[] = ["qtc", "grammar"];

/** Checks instance texts against one compiled schema. */
export interface InstanceChecker {
  /** Whether the text (tokenized with special tokens on) is accepted whole, the grammar able to end after it. */
  checkText(text: string): { accepted: boolean };
}

/** What the qtc checker needs of the model, built once per process (as the runtime builds it once). */
export class EngineTables {
  private constructor(
    readonly model: LlamaModel,
    readonly vocab: EngineVocab,
    readonly keys: KeyVocab,
    private readonly eos: number,
  ) {}

  static create(model: LlamaModel): EngineTables {
    const vocab = modelVocab(model).engine;
    const { tables } = vocab;
    return new EngineTables(model, vocab, new KeyVocab(tables.texts), model.tokens.eos ?? tables.eogTokens[0] ?? 151645);
  }

  /** The end-of-generation token an accepted text is followed by. */
  get end(): number {
    return this.eos;
  }
}

/**
 * A checker of `id` for `compiled`. Throws a QtcException `schema_too_large` where qtc's engine refuses the grammar,
 * as the runtime refuses it (counted as a compile error); anything else it throws is a crash.
 */
export async function createChecker(id: CheckerId, model: LlamaModel, engine: EngineTables | undefined, compiled: CompiledSchema): Promise<InstanceChecker> {
  if (id === "grammar" || !engine) return GrammarChecker.create(model, compiled);
  return new QtcChecker(engine, compiled);
}

/** qtc's engine and the key guard, fed the instance's tokens as a turn feeds sampled ones. */
class QtcChecker implements InstanceChecker {
  private readonly start: QtcMatcher;

  constructor(
    private readonly engine: EngineTables,
    private readonly compiled: CompiledSchema,
  ) {
    this.start = createQtcMatcher({ gbnf: compiled.gbnf, specialTokens: [], closeToken: -1, valueClosers: [] }, engine.vocab);
  }

  checkText(text: string): { accepted: boolean } {
    const { model, keys } = this.engine;
    const tokens = model.tokenize(text, true);
    const matcher = this.start.fork();
    const { unique } = this.compiled;
    const guard = new KeyGuard(keys, unique && { kind: "value", plan: unique, shapes: unique.root });
    for (const token of tokens) {
      // Where the guard may ban (inside a key, between members, in an array of distinct items), ask it as the turn does before sampling.
      if (guard.atKey || guard.afterMember || guard.watched()) {
        const next = matcher.nextTokens();
        if (guard.banned(matcher, listedTokens(next)).includes(token)) return { accepted: false };
      }
      if (!matcher.accept(token)) return { accepted: false };
      if (guard.feed(model.detokenize([token], true))) return { accepted: false };
    }
    return { accepted: matcher.canBeNext(this.engine.end) };
  }
}
