// RepeatGuard on token ids, and where its setting comes from: the library's repeatGuard (checked), `--repeat-guard`
// on qtc run and qtc serve (off or a number), and the server's default for requests that set none.

import { afterEach, describe, expect, test } from "vitest";
import { buildProgram } from "../../src/cli/cli.js";
import { repeatGuardOption } from "../../src/cli/options.js";
import { RepeatGuard, REPEAT_DEFAULTS } from "../../src/runtime/repeat-guard.js";
import { resolveRequest } from "../../src/runtime/request.js";
import { hermes } from "../../src/formats/index.js";
import { fakeRuntime } from "../server/fake-runtime.js";
import { post, start, type Running } from "../server/helpers.js";

const A = 100;
const B = 200;
const C = 300;

describe("RepeatGuard", () => {
  test("a 1-token span trips at the threshold, once per loop; a 6-token phrase at a third of it", () => {
    const g = new RepeatGuard(10);
    g.push(Array<number>(9).fill(A));
    expect(g.tripped()).toBe(false);
    g.push([A]);
    expect(g.tripped()).toBe(true);
    expect(g.tripped()).toBe(false);
    const phrase = new RepeatGuard(12);
    for (let i = 0; i < 3; i++) phrase.push([A, B, C, B + 1, C + 1, 7]);
    expect(phrase.tripped()).toBe(false);
    phrase.push([A, B, C, B + 1, C + 1, 7]);
    expect(phrase.tripped()).toBe(true);
    expect(phrase.stopped).toBe(1);
  });

  test("varied text never trips", () => {
    const g = new RepeatGuard();
    g.push(Array.from({ length: 5000 }, (_, i) => (i * 7919) % 1000));
    expect(g.tripped()).toBe(false);
    expect(REPEAT_DEFAULTS.repeats).toBe(72);
  });
});

describe("repeatGuard settings", () => {
  let server: Running | undefined;
  afterEach(async () => {
    await server?.app.close();
    server = undefined;
  });

  test("the library checks it: a whole number ≥ 2 or false; the default is 72", () => {
    const messages = [{ role: "user" as const, content: "hi" }];
    expect(resolveRequest({ messages }, undefined, hermes).repeatGuard).toBe(72);
    expect(resolveRequest({ messages, repeatGuard: false }, undefined, hermes).repeatGuard).toBe(false);
    expect(() => resolveRequest({ messages, repeatGuard: 1 }, undefined, hermes)).toThrow(/repeatGuard/);
  });

  test("--repeat-guard takes off or a number, on qtc run and qtc serve", () => {
    expect(repeatGuardOption("off")).toBe(false);
    expect(repeatGuardOption("40")).toBe(40);
    expect(() => repeatGuardOption("1")).toThrow();
    for (const name of ["run", "serve"]) expect(buildProgram().commands.find((c) => c.name() === name)!.helpInformation()).toContain("--repeat-guard <n|off>");
  });

  test("the server's repeatGuard reaches every request", async () => {
    const runtime = fakeRuntime();
    server = await start({ runtime, repeatGuard: false });
    await post(`${server.url}/v1/chat/completions`, { model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(runtime.requests.at(-1)!.repeatGuard).toBe(false);
  });
});
