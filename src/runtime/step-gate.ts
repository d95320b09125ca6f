// Owns: keeping concurrent turns in step, so that each model pass carries a token of every one of them.
// node-llama-cpp runs its next pass as soon as one sequence has queued a token; a turn whose sample resolved
// last is still doing its grammar work then, misses the pass, and the sequences go on alternating passes
// (measured: 18 passes for 2 requests of 8 samples, 1.06 sequences a pass). Turns wait here for each other
// before queueing their next token, so they all queue it in one burst.

/**
 * How long turns at the gate wait for one that is neither here nor in a model pass (held up by its consumer,
 * say). One in a pass is always waited for: it arrives after its sample, and a pass without it costs more.
 */
const MAX_WAIT_MS = 5;

export interface StepGateMember {
  /** Wait until every turn in step has arrived too; then queue the next token (and call `queued`). */
  arrive(): Promise<void>;
  /** The turn's token is in a pass (queued) until `sampled`. */
  queued(): void;
  sampled(): void;
  /** The turn ended: the others no longer wait for it. */
  leave(): void;
}

/** The turns of one context in their decode loops; a turn counts from its first arrival. */
export class StepGate {
  private readonly members = new Set<object>();
  private readonly arrived = new Set<object>();
  private readonly inPass = new Set<object>();
  private waiting: Array<() => void> = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  join(): StepGateMember {
    const id = {};
    return {
      arrive: () => this.arrive(id),
      queued: () => void this.inPass.add(id),
      sampled: () => {
        this.inPass.delete(id);
        this.settle();
      },
      leave: () => {
        this.members.delete(id);
        this.arrived.delete(id);
        this.inPass.delete(id);
        this.settle();
      },
    };
  }

  private arrive(id: object): Promise<void> {
    this.members.add(id);
    this.arrived.add(id);
    const wait = new Promise<void>((resolve) => this.waiting.push(resolve));
    this.settle();
    return wait;
  }

  /** Release when all are here; wait for those in a pass; give the others MAX_WAIT_MS. */
  private settle(): void {
    if (this.waiting.length === 0) return;
    const pending = [...this.members].filter((m) => !this.arrived.has(m));
    if (pending.length === 0) return this.release();
    if (pending.some((m) => this.inPass.has(m))) {
      clearTimeout(this.timer);
      this.timer = undefined;
    } else this.timer ??= setTimeout(() => this.release(), MAX_WAIT_MS);
  }

  private release(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.arrived.clear();
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}
