// Owns: a turn's output as it grows (the tokens added, sampled and forced, in order; each step's text delta; the
// budget left; the repetition guard watching them), when its milestones happened, and the outcome built from them.

import type { LlamaModel, Token } from "node-llama-cpp";
import { StreamDetokenizer } from "./detokenizer.js";
import type { CallGrammar } from "./call-grammar.js";
import type { RemovedLog } from "./probability-removed.js";
import { RepeatGuard, REPETITION_STOPPED } from "./repeat-guard.js";
import type { Step, TurnOutcome, TurnPlan } from "./turn-plan.js";

/** The turn's milestones (performance.now()); 0 until reached. */
export interface TurnClock {
  created: number;
  promptDone: number;
  /** Milliseconds spent starting grammars (compiles and matchers), summed. */
  grammarStart: number;
  firstSample: number;
  firstToken: number;
}

export class TurnOutput {
  readonly tokens: number[] = [];
  forcedCount = 0;
  readonly at: TurnClock = { created: performance.now(), promptDone: 0, grammarStart: 0, firstSample: 0, firstToken: 0 };
  readonly repeats: RepeatGuard | undefined;
  private readonly detok: StreamDetokenizer;

  constructor(
    model: LlamaModel,
    private readonly plan: TurnPlan,
    /** A text token's bytes (the vocabulary's); special tokens are spelled by the model. */
    textBytes: (token: number) => Uint8Array | undefined,
  ) {
    const utf8 = new TextEncoder();
    this.detok = new StreamDetokenizer((t) => textBytes(t) ?? utf8.encode(model.detokenize([t as Token], true)));
    this.repeats = plan.repeatGuard === false ? undefined : new RepeatGuard(plan.repeatGuard);
  }

  /** The first token was sampled. */
  sampled(): void {
    this.at.firstSample = performance.now();
    if (this.at.firstToken === 0) this.at.firstToken = this.at.firstSample;
  }

  remaining(): number {
    return this.plan.maxTokens - this.tokens.length;
  }

  force(step: Step, list: readonly number[]): void {
    step.forced.push(...list);
    this.add(step, list, true);
  }

  /** Add tokens to the turn's output and their text to the step's delta. */
  add(step: Step, added: readonly number[], forced: boolean): void {
    this.tokens.push(...added);
    if (forced) this.forcedCount += added.length;
    const text = this.detok.push(added);
    step.text += text;
    this.repeats?.push(added);
  }

  flush(): string {
    return this.detok.flush();
  }

  /** The outcome: counts and timings, the grammar's report (`call`: the last one) and the guards' notices. */
  outcome(finish: TurnOutcome["finishReason"], grammarMs: number, call: CallGrammar | undefined, removed: RemovedLog | undefined): TurnOutcome {
    const end = performance.now();
    const { at, plan } = this;
    const decodeMs = end - at.promptDone;
    const firstSample = at.firstSample || end;
    return {
      finishReason: finish,
      promptTokens: plan.promptTokens.length,
      promptTokensReused: plan.reusedPromptTokens,
      completionTokens: this.tokens.length,
      forcedTokens: this.forcedCount,
      tokens: this.tokens,
      timeToFirstTokenMs: (at.firstToken > 0 ? at.firstToken : end) - plan.startedAt,
      decodeTokensPerSecond: decodeMs > 0 ? (this.tokens.length * 1000) / decodeMs : 0,
      grammarMs,
      totalMs: end - plan.startedAt,
      ...(call ? { grammar: call.grammar.compiled.constraint } : {}),
      ...(call?.matcher.footprintBytes !== undefined ? { grammarBytes: call.matcher.footprintBytes } : {}),
      ...(this.repeats?.stopped ? { notices: [REPETITION_STOPPED] } : {}),
      ...(removed ? { masked: removed.steps } : {}),
      phases: {
        setup: at.created - plan.startedAt,
        prompt: at.promptDone - at.created,
        grammarStart: at.grammarStart,
        firstToken: firstSample - at.promptDone,
        decode: end - firstSample,
      },
    };
  }
}
