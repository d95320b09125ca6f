// A regex, choice or grammar constraint on the text answer (`constraint`): constrained, the grammar holds the
// answer from its first token, so random weights still answer within it (or call a tool under "auto");
// unconstrained answers are judged, never trusted.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime, type GenerateOutput, type Runtime } from "../../src/index.js";
import { qtcFailure } from "../helpers/errors.js";
import { tinyModelPath } from "../helpers/models.js";

let rt: Runtime;
const messages = [{ role: "user" as const, content: "Give the ticket id." }];
const TOOL = { type: "function" as const, function: { name: "lookup", parameters: { type: "object", properties: { q: { type: "string", maxLength: 20 } }, required: ["q"] } } };
const TICKET = /^[A-Z]{3}-[0-9]{4}$/;

beforeAll(async () => {
  rt = await createRuntime({ model: await tinyModelPath(), threads: 1, contextSize: 1024, sequences: 1 });
});
afterAll(async () => {
  await rt?.close();
});

function answered(r: GenerateOutput, accepts: (s: string) => boolean): void {
  expect(r.errors).toEqual([]);
  if (r.toolCalls.length > 0) {
    expect(r.toolCalls).toHaveLength(1);
    expect(r.answer).toBeUndefined();
    return;
  }
  expect(accepts(r.content), JSON.stringify(r.content)).toBe(true);
  expect(r.answer?.ok).toBe(true);
}

describe("constrained answers", () => {
  test("regex, no tools: every seeded answer matches as a whole", async () => {
    for (let seed = 0; seed < 8; seed++) {
      const r = await rt.generate({ messages, constraint: { regex: "[A-Z]{3}-[0-9]{4}" }, seed, maxTokens: 48 });
      expect(r.content).toMatch(TICKET);
      expect(r.answer).toEqual({ ok: true, value: r.content, constraint: "regex" });
    }
  });

  test("choice beside one tool under auto: one call or one of the choices", async () => {
    for (let seed = 0; seed < 8; seed++) {
      const r = await rt.generate({ messages, tools: [TOOL], constraint: { choice: ["PASS", "FAIL", "SKIP"] }, seed, maxTokens: 64 });
      answered(r, (s) => ["PASS", "FAIL", "SKIP"].includes(s));
    }
  });

  test("grammar under none: the answer is accepted by the grammar", async () => {
    const grammar = 'root ::= verdict " " num\nverdict ::= ("yes" | "no")\nnum ::= [0-9]{1,3}';
    for (let seed = 0; seed < 8; seed++) {
      const r = await rt.generate({ messages, tools: [TOOL], toolChoice: "none", constraint: { grammar }, seed, maxTokens: 48 });
      expect(r.toolCalls).toEqual([]);
      expect(r.content).toMatch(/^(yes|no) [0-9]{1,3}$/);
      expect(r.answer).toMatchObject({ ok: true, constraint: "grammar" });
    }
  });

  test("unconstrained: an answer that breaks the constraint is refused with its reason", async () => {
    const r = await rt.generate({ messages, mode: "unconstrained", constraint: { choice: ["PASS", "FAIL"] }, seed: 1, maxTokens: 16 });
    expect(r.answer).toMatchObject({ ok: false, constraint: "choice" });
    expect(["choice", "truncated"]).toContain(r.answer?.ok === false ? r.answer.reason : "");
  });

  test("bounds before work: a bad or oversized constraint is refused", async () => {
    expect(await qtcFailure(rt.generate({ messages, constraint: { regex: "(\\d+\\.?\\d*)*z[ab]*a[ab]{11}" } }))).toMatchObject({ code: "invalid_option" });
    expect(await qtcFailure(rt.generate({ messages, constraint: { choice: [] } }))).toMatchObject({ code: "invalid_option" });
    expect(await qtcFailure(rt.generate({ messages, constraint: { choice: Array.from({ length: 300 }, (_, i) => `c${i}`) } }))).toMatchObject({ code: "too_large" });
    expect(await qtcFailure(rt.generate({ messages, constraint: { grammar: "root ::= root \"a\"" } }))).toMatchObject({ code: "invalid_option" });
    expect(await qtcFailure(rt.generate({ messages, constraint: { grammar: "root ::= <[151657]>" } }))).toMatchObject({ code: "invalid_option" });
    expect(await qtcFailure(rt.generate({ messages, constraint: { choice: ["<tool_call>"] } }))).toMatchObject({ code: "invalid_option" });
    expect(await qtcFailure(rt.generate({ messages, responseSchema: {}, constraint: { regex: "a" } }))).toMatchObject({ code: "invalid_option" });
  });
});

describe("a caller's unbounded grammar", () => {
  test("an answer cut at the token limit is judged truncated, and not noted as a bug of qtc's", async () => {
    for (let seed = 0; seed < 4; seed++) {
      const r = await rt.generate({ messages, constraint: { grammar: "root ::= [a-z]+" }, seed, maxTokens: 6 });
      expect(r.content).toMatch(/^[a-z]+$/);
      if (r.answer?.ok === false) expect(r.answer.reason).toBe("truncated");
      expect(r.diagnostics.notes.join("\n")).not.toMatch(/bug in the grammar/);
    }
  });
});
