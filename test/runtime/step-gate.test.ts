// StepGate: concurrent turns queue their next token together; one in a model pass is waited for, one held
// elsewhere only briefly, and one that ends is no longer waited for.

import { describe, expect, test } from "vitest";
import { StepGate } from "../../src/runtime/step-gate.js";

const settled = async (p: Promise<void>): Promise<boolean> => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((resolve) => setTimeout(resolve, 20));
  return done;
};

describe("StepGate", () => {
  test("a lone turn passes at once", async () => {
    const a = new StepGate().join();
    expect(await settled(a.arrive())).toBe(true);
  });

  test("a turn waits for one whose token is in a pass, and both go on together", async () => {
    const gate = new StepGate();
    const [a, b] = [gate.join(), gate.join()];
    await a.arrive();
    await b.arrive();
    b.queued();
    const waiting = a.arrive();
    expect(await settled(waiting)).toBe(false);
    b.sampled();
    const both = b.arrive();
    expect(await settled(waiting)).toBe(true);
    expect(await settled(both)).toBe(true);
  });

  test("one held elsewhere (not in a pass) is waited for only briefly; one that leaves not at all", async () => {
    const gate = new StepGate();
    const [a, b, c] = [gate.join(), gate.join(), gate.join()];
    await Promise.all([a.arrive(), b.arrive(), c.arrive()]);
    expect(await settled(a.arrive())).toBe(true);
    c.queued();
    const waiting = b.arrive();
    c.leave();
    expect(await settled(waiting)).toBe(true);
  });
});
