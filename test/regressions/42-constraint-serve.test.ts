// Issue 42: `qtc serve --model synthetic:tiny` dropped a top-level `grammar` and `structured_outputs` without a
// word (0 of 30 seeded turns within the constraint). Now, with one tool under tool choice "auto", every seeded
// turn ends as one valid call or an answer the constraint accepts, checked here with plain JS RegExps, streamed
// and not; and `qtc.answer` says what judged the answer.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseSse, post } from "../server/helpers.js";
import { type ServeCli, startServeCli } from "../helpers/cli.js";

const TOOL = { type: "function", function: { name: "lookup", parameters: { type: "object", properties: { q: { type: "string", maxLength: 24 } }, required: ["q"], additionalProperties: false } } };
const CASES: Array<{ name: string; field: Record<string, unknown>; accepts: RegExp; kind: string }> = [
  { name: "structured_outputs.regex", field: { structured_outputs: { regex: "[A-Z]{3}-[0-9]{4}" } }, accepts: /^[A-Z]{3}-[0-9]{4}$/, kind: "regex" },
  { name: "structured_outputs.choice", field: { structured_outputs: { choice: ["PASS", "FAIL", "SKIP"] } }, accepts: /^(PASS|FAIL|SKIP)$/, kind: "choice" },
  { name: "grammar (llama-server)", field: { grammar: 'root ::= verdict ": " word\nverdict ::= "ok" | "error"\nword ::= [a-z]{1,8}' }, accepts: /^(ok|error): [a-z]{1,8}$/, kind: "grammar" },
];

let baseURL = "";
let server: ServeCli | undefined;

beforeAll(async () => {
  server = await startServeCli(["--context-size", "1024"]);
  baseURL = server.baseURL;
}, 180_000);

afterAll(() => server?.stop());

/** The turn's content and calls, from a whole response or a stream of chunks. */
async function turn(body: Record<string, unknown>, stream: boolean): Promise<{ content: string; calls: Array<{ name: string; arguments: string }>; qtc: any }> {
  const res = await post(`${baseURL}/v1/chat/completions`, { ...body, stream });
  expect(res.status, res.text).toBe(200);
  if (!stream) {
    const m = res.json.choices[0].message;
    return { content: m.content ?? "", calls: (m.tool_calls ?? []).map((c: any) => c.function), qtc: res.json.qtc };
  }
  let content = "";
  const calls: Array<{ name: string; arguments: string }> = [];
  let qtc: any;
  for (const { data } of parseSse(res.text)) {
    if (data === "[DONE]") continue;
    if (data.qtc) qtc = data.qtc;
    const delta = data.choices?.[0]?.delta ?? {};
    if (typeof delta.content === "string") content += delta.content;
    for (const c of delta.tool_calls ?? []) {
      calls[c.index] ??= { name: "", arguments: "" };
      calls[c.index]!.name += c.function?.name ?? "";
      calls[c.index]!.arguments += c.function?.arguments ?? "";
    }
  }
  return { content, calls, qtc };
}

describe("issue 42: constraints beside one tool under auto, through qtc serve", () => {
  for (const c of CASES) {
    for (const stream of [false, true]) {
      test(`${c.name}, ${stream ? "streamed" : "whole"}: 10 seeded turns, each one valid call or an accepted answer`, async () => {
        let answers = 0;
        for (let seed = 0; seed < 10; seed++) {
          const body = { model: "tiny", messages: [{ role: "user", content: "Look it up or give the verdict." }], tools: [TOOL], tool_choice: "auto", parallel_tool_calls: false, max_tokens: 64, seed, ...c.field };
          const r = await turn(body, stream);
          if (r.calls.length > 0) {
            expect(r.calls).toHaveLength(1);
            expect(r.calls[0]!.name).toBe("lookup");
            const args = JSON.parse(r.calls[0]!.arguments);
            expect(Object.keys(args)).toEqual(["q"]);
            expect(typeof args.q === "string" && args.q.length <= 24).toBe(true);
            expect(r.content).toBe("");
          } else {
            answers++;
            expect(r.content, `seed ${seed}`).toMatch(c.accepts);
            expect(r.qtc.answer).toEqual({ ok: true, constraint: c.kind, ended: "stop" });
          }
        }
        // Both branches of the envelope are taken across the seeds (not only calls).
        expect(answers).toBeGreaterThan(0);
      }, 120_000);
    }
  }

  test("a constraint qtc cannot hold is a 400 naming its field, before any work", async () => {
    const body = { model: "tiny", messages: [{ role: "user", content: "x" }], max_tokens: 16 };
    const bad = await post(`${baseURL}/v1/chat/completions`, { ...body, structured_outputs: { regex: "(\\d+\\.?\\d*)*z[ab]*a[ab]{11}" } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.param).toBe("structured_outputs.regex");
    const tag = await post(`${baseURL}/v1/completions`, { model: "tiny", prompt: "x", grammar: "root ::= <[151657]>" });
    expect(tag.status).toBe(400);
    expect(tag.json.error.param).toBe("grammar");
  });
});
