// Owns: one assistant turn on one sequence: the sampling loop over its phases (think, free text, grammar), which
// consults its collaborators between samples (thinking budget, think and bare openers, the call's grammar with its
// guards, the repetition guard, the probability log) and ends the turn where they say. It yields raw text deltas
// (special tags included); the runtime feeds them to the parser.

import type { LlamaContextSequence, Token, TokenBias } from "node-llama-cpp";
import { fail } from "../errors.js";
import type { GrammarPhase } from "../grammar/index.js";
import { CallGrammar, refuseUnmetChoice } from "./call-grammar.js";
import { RemovedLog } from "./probability-removed.js";
import { ThinkingBudget } from "./thinking-budget.js";
import { TurnOutput } from "./turn-output.js";
import { turnStart, type Step, type TurnEnv, type TurnOutcome, type TurnPhase, type TurnPlan, type TurnStart } from "./turn-plan.js";
import type { FinishReason } from "./types.js";

export type { Step, TurnBiases, TurnEnv, TurnOutcome, TurnPhases, TurnPlan } from "./turn-plan.js";

/** Run one turn; yields raw text deltas and returns the outcome. The caller owns (and clears) the sequence. */
export async function* runTurn(seq: LlamaContextSequence, env: TurnEnv, plan: TurnPlan): AsyncGenerator<string, TurnOutcome, void> {
  const turn = new Turn(env, plan);
  // The prompt but its last token is evaluated first: decode speed is measured from there. The last prompt
  // token and any tokens forced before the first sample then go in one batch.
  await seq.evaluateWithoutGeneratingNewTokens(plan.promptTokens.slice(plan.reusedPromptTokens, -1) as Token[]);
  turn.out.at.promptDone = performance.now();
  const first = await turn.begin();
  const told = (text: string) => (plan.onDelta?.(turn.phase === "grammar"), text);
  if (first.text) yield told(first.text);
  if (!turn.finish) {
    const { temperature, topP, topK, seed } = plan;
    const gen = seq.evaluate([...plan.promptTokens.slice(-1), ...first.forced] as Token[], { temperature, topP, topK, seed, yieldEogToken: true, tokenBias: () => turn.bias });
    const inStep = env.steps?.join();
    try {
      let next = await gen.next();
      turn.out.sampled();
      while (!turn.finish && !next.done) {
        const token = next.value;
        if (turn.endsBefore(token)) break;
        const step = await turn.take(token);
        if (step.text) yield told(step.text);
        if (turn.finish) break;
        await inStep?.arrive();
        inStep?.queued();
        const fed = step.fed ?? [token];
        next = await gen.next((step.forced.length > 0 || fed.length > 1 ? [...fed, ...step.forced] : fed[0]) as Token | Token[]);
        inStep?.sampled();
      }
      turn.finish ??= "stop";
    } finally {
      inStep?.leave();
      await gen.return();
    }
  }
  const tail = turn.out.flush();
  if (tail) yield told(tail);
  return turn.outcome();
}

/** The state of one turn between sampled tokens: its phase, its collaborators and where it ended. */
class Turn {
  phase: TurnPhase;
  finish: FinishReason | undefined;
  bias: TokenBias;
  readonly out: TurnOutput;
  private readonly start: TurnStart;
  private callsClosed = 0;
  /** A call was opened by its bare opener (it ends without a close tag). */
  private bareOpened = false;
  /** The grammar has just taken over at the answer's start, and no step under it has run yet. */
  private answerUnstarted = false;
  private readonly thinking: ThinkingBudget;
  private call: CallGrammar | undefined;
  /** Grammar time outside the current matcher: compiles, look-aheads, and matchers replaced. */
  private grammarMs = 0;
  /** The masks tokens were sampled under in the grammar (plan.measureRemoved). */
  private readonly removed: RemovedLog | undefined;

  constructor(
    private readonly env: TurnEnv,
    private readonly plan: TurnPlan,
  ) {
    this.out = new TurnOutput(env.model, plan, (t) => env.matchers.engine.bytes(t));
    this.start = turnStart(plan, env);
    this.phase = this.start.phase;
    this.bias = this.start.bias;
    this.thinking = new ThinkingBudget(plan, this.start.grammarFromStart, (text) => env.matchers.tokenize(text));
    this.removed = plan.measureRemoved ? new RemovedLog() : undefined;
  }

  /** Tokens forced before the first sample: the think tag, or the grammar's forced start. */
  async begin(): Promise<Step> {
    const step: Step = { forced: [], text: "" };
    if (this.phase === "think") this.out.force(step, this.thinking.opening());
    else if (this.phase === "grammar") await this.startGrammar(step, "start");
    if (step.forced.length > 0) this.out.at.firstToken = performance.now();
    if (this.plan.signal?.aborted) this.finish = "aborted";
    return step;
  }

  /** Whether the turn ends before taking `token`: cancelled, end of generation, or no budget left. */
  endsBefore(token: number): boolean {
    const matcher = this.phase === "grammar" ? this.call!.matcher : undefined;
    if (this.plan.signal?.aborted) this.finish = "aborted";
    // No bias can ban an end: one the grammar refuses, or one in `<think>` before a demanded answer, goes to `take`.
    else if (this.env.model.isEogToken(token as Token) && (matcher ? matcher.canBeNext(token) : this.phase !== "think" || !this.start.grammarFromStart)) this.finish = this.endOfTurn();
    else if (this.out.remaining() <= 0) this.finish = "length";
    // Where the grammar can only end (no bias can force an end-of-generation token), a refused sample ends it.
    else if (matcher && !matcher.canBeNext(token) && matcher.forcedContinuation(1).ends) this.finish = this.endOfTurn();
    return this.finish !== undefined;
  }

  /** Take a sampled token: phase changes, forced tokens, end of turn. */
  async take(token: number): Promise<Step> {
    const step: Step = { forced: [], text: "" };
    if (this.phase === "free") await this.takeFree(step, token);
    else if (this.phase === "think") await this.takeThink(step, token);
    else this.takeInGrammar(step, token);
    if (!this.finish && this.phase !== "think" && this.out.repeats?.tripped()) {
      // Under the grammar the value and the call close validly; free text ends.
      const stop = this.out.repeats.stop(this.phase === "grammar" ? this.call?.matcher : undefined);
      this.out.force(step, stop.tokens);
      this.finish = stop.finish;
    }
    // Text the grammar forces ran past the budget: the budget cannot hold it (the caller's to raise), never a 500.
    if (this.out.remaining() < 0) fail("budget_too_small", `maxTokens ${this.plan.maxTokens} is too small: the text the constraint forces ran past it; raise maxTokens`);
    return step;
  }

  private async takeFree(step: Step, token: number): Promise<void> {
    const trigger = this.plan.mode === "constrained" && this.plan.toolChoice === "auto" && token === this.plan.format.open.token;
    // No room for one whole call: the open tag is refused and the turn ends at the limit.
    if (trigger) return void (await this.startGrammar(step, "after-open", [token]));
    this.out.add(step, [token], false);
    if (!this.start.bare) return;
    const seen = this.start.bare.push(step.text);
    if (!seen.opened || this.plan.toolChoice !== "auto") {
      this.bias = seen.opened || seen.banned.length === 0 ? this.start.freeBias : this.env.biases.banningAll(seen.banned);
      return;
    }
    // The call's opener was written as text: the grammar takes over right after it. The call ends without a close
    // tag (the step after the opener reads it); if no call fits, the turn ends at the limit.
    this.bareOpened = true;
    await this.startGrammar(step, "after-bare-open");
  }

  private async takeThink(step: Step, token: number): Promise<void> {
    const ending = this.thinking.endsAt(token, this.env.model.isEogToken(token as Token));
    if (ending) {
      // `</think>` and the blank line go in the token's place, then the opener, taken as in the answer; the step's
      // tokens replace the sampled one, in order.
      const from = this.out.tokens.length;
      if (this.out.remaining() < ending.cost) return void (this.finish = "length");
      this.out.force(step, ending.before);
      await this.leaveThinking(step, ending.keep ? token : undefined);
      step.fed = this.out.tokens.slice(from);
      step.forced = [];
      return;
    }
    this.out.add(step, [token], false);
    const end = this.thinking.after(token, this.out.remaining(), () => this.out.repeats?.tripped() ?? false);
    if (end === undefined) return;
    this.out.force(step, end);
    await this.leaveThinking(step);
  }

  /** Thinking ended: free text, or the grammar from the answer's start (taking `opener`, sampled, first). */
  private async leaveThinking(step: Step, opener?: number): Promise<void> {
    if (!this.start.grammarFromStart) {
      this.phase = "free";
      this.bias = this.start.freeBias;
      if (opener !== undefined) await this.takeFree(step, opener);
    } else await this.startGrammar(step, "start", opener === undefined ? [] : [opener], true);
  }

  /** Sampled under the grammar: the matcher takes it (or what it feeds instead). */
  private takeInGrammar(step: Step, token: number): void {
    const { matcher } = this.call!;
    this.removed?.record(this.out.tokens.length, this.env.biases.maskOf?.(this.bias));
    const taken = matcher.takeSampled(token);
    if (taken.length !== 1 || taken[0] !== token) step.fed = taken;
    this.out.add(step, taken, false);
    if (taken.includes(matcher.grammar.closeToken)) this.closedCall();
    if (!this.finish) this.afterGrammarStep(step);
  }

  /**
   * The grammar on for the rest of the turn, `opening` taken (a think-phase opener only if the grammar takes it:
   * `tryOpening`), and the step after it; false, the turn ending at the limit, when not even one call fits.
   */
  private async startGrammar(step: Step, phase: GrammarPhase, opening: number[] = [], tryOpening = false): Promise<boolean> {
    this.answerUnstarted = phase === "start";
    const t0 = performance.now();
    if (this.call) this.grammarMs += this.call.matcher.ms;
    const call = await CallGrammar.open(this.env, this.plan, phase, this.out.remaining(), (ms) => (this.grammarMs += ms));
    if (call) {
      this.call = call;
      this.bias = this.env.biases.inCall;
      this.phase = "grammar";
      this.out.at.grammarStart += performance.now() - t0;
      // A guarded grammar admits calls longer than the budget: refuse to open one that cannot close in time.
      if (call.fits(this.out.remaining())) {
        if (!tryOpening || call.matcher.acceptAll(opening).length === opening.length) this.out.add(step, opening, false);
        this.afterGrammarStep(step);
        return true;
      }
      this.phase = "free";
    }
    if (this.callsClosed === 0) refuseUnmetChoice(this.plan, call, this.out.remaining());
    this.finish = "length";
    return false;
  }

  /** After a step under the grammar: jump forward (cut after a close tag that ends the turn), guard, next bias. */
  private afterGrammarStep(step: Step): void {
    const call = this.call!;
    if (this.answerUnstarted) {
      this.answerUnstarted = false;
      call.refuseForcedOverBudget(this.out.remaining());
    }
    const { forced, ends } = call.jumpForward(this.out.remaining());
    let take = forced.length;
    for (let i = 0; i < forced.length && take === forced.length; i++) {
      if (forced[i] === call.matcher.grammar.closeToken && this.closedCall(this.out.tokens.length + i + 1)) take = i + 1;
    }
    this.out.force(step, forced.slice(0, take));
    if (ends) this.finish = this.endOfTurn();
    const close = this.finish ? undefined : call.guard?.check(this.out.remaining());
    if (close) {
      this.out.force(step, close.tokens);
      this.finish = close.finish;
    }
    if (!this.finish) this.bias = call.biasFor(this.out.remaining());
  }

  /** A call closed at `used` tokens; the turn ends when it must (no parallel calls, call limit, no room for another). */
  private closedCall(used = this.out.tokens.length): boolean {
    this.callsClosed++;
    const over = !this.plan.parallel || this.callsClosed >= this.plan.maxCalls || this.plan.maxTokens - used < (this.call?.grammar.compiled.worstCaseCallTokens ?? 0);
    if (over) this.finish = "tool_calls";
    return over;
  }

  /** How a turn that ends of itself finishes: with its calls, or plainly. */
  private endOfTurn(): FinishReason {
    return this.callsClosed > 0 || this.bareOpened ? "tool_calls" : "stop";
  }

  outcome(): TurnOutcome {
    return this.out.outcome(this.finish ?? "stop", this.grammarMs + (this.call?.matcher.ms ?? 0), this.call, this.removed);
  }
}
