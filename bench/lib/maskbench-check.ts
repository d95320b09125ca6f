// Owns: how MaskBench checks an instance against a compiled schema: the way the runtime constrains a call (qtc's
// own engine with the call's semantic state inside its matcher, SemanticMatcher, token by token; the default), or
// with the grammar alone (the engine's GrammarChecker; `--checker grammar`, for comparison).

import type { LlamaModel } from "node-llama-cpp";
import { GrammarChecker, modelVocab } from "../../dist/model/grammar-checker.js";
import type { CompiledSchema } from "../../dist/grammar/types.js";
import type { EngineVocab } from "../../dist/engine/engine-vocab.js";
import { createQtcMatcher, type QtcMatcher } from "../../dist/engine/qtc-matcher.js";
import { KeyGuard, KeyVocab, SemanticMatcher } from "../../dist/engine/semantic/index.js";

/** `qtc`: the runtime's engine with its semantic state (the default); `grammar`: the same engine, the grammar alone. */
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

/** qtc's engine with the semantic state, fed the instance's tokens as a turn feeds sampled ones. */
class QtcChecker implements InstanceChecker {
  private readonly start: QtcMatcher;

  constructor(
    private readonly engine: EngineTables,
    private readonly compiled: CompiledSchema,
  ) {
    this.start = createQtcMatcher({ gbnf: compiled.gbnf, specialTokens: [], closeToken: -1, valueClosers: [] }, engine.vocab);
  }

  checkText(text: string): { accepted: boolean } {
    const { model, keys, vocab } = this.engine;
    const { unique } = this.compiled;
    const state = new KeyGuard(keys, unique && { kind: "value", plan: unique, shapes: unique.root });
    const matcher = SemanticMatcher.wrap(this.start.fork(), state, keys, vocab);
    // Each token must be in the mask a turn samples from, then be taken (a key or an item completed twice is not).
    for (const token of model.tokenize(text, true)) if (!matcher.canBeNext(token) || !matcher.accept(token)) return { accepted: false };
    return { accepted: matcher.canBeNext(this.engine.end) };
  }
}
