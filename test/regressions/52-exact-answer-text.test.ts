// Issue 52, row 7: whitespace a constraint requires was trimmed on every route (completions too), in the body and
// in the stream, so `guided_choice: [" x "]` answered "x" and qtc then judged its own answer not ok. An answer a
// regex, choice or grammar holds is now exactly the text the constraint holds, on every route, whole or streamed.

import { describe, expect, test } from "vitest";
import { useTinyServer } from "../helpers/tiny-server.js";
import { parseSse, post } from "../server/helpers.js";

const server = useTinyServer();
const LIMIT_MS = 120_000;

const CASES = [
  { field: { guided_choice: [" x "] }, text: " x " },
  { field: { guided_regex: "  def f\\(\\):\\n    return 1\\n" }, text: "  def f():\n    return 1\n" },
];

/** The answer text of each route, from the body and from the stream, and what `qtc.answer` says. */
const ROUTES = {
  chat: {
    path: "/v1/chat/completions",
    body: (extra: object) => ({ model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 32, ...extra }),
    whole: (json: any) => ({ text: json.choices[0].message.content, answer: json.qtc?.answer }),
    streamed: (frames: any[]) => ({
      text: frames.map((f) => f.data.choices?.[0]?.delta?.content ?? "").join(""),
      answer: frames.findLast((f) => f.data.qtc)?.data.qtc.answer,
    }),
  },
  completions: {
    path: "/v1/completions",
    body: (extra: object) => ({ model: "m", prompt: "hi", max_tokens: 32, ...extra }),
    whole: (json: any) => ({ text: json.choices[0].text, answer: json.qtc?.answer }),
    streamed: (frames: any[]) => ({
      text: frames.map((f) => f.data.choices?.[0]?.text ?? "").join(""),
      answer: frames.findLast((f) => f.data.qtc)?.data.qtc.answer,
    }),
  },
  responses: {
    path: "/v1/responses",
    body: (extra: object) => ({ model: "m", input: "hi", max_output_tokens: 32, ...extra }),
    whole: (json: any) => ({ text: json.output.find((i: any) => i.type === "message").content[0].text, answer: json.qtc?.answer }),
    streamed: (frames: any[]) => ({
      text: frames.filter((f) => f.data.type === "response.output_text.delta").map((f) => f.data.delta).join(""),
      answer: frames.find((f) => f.data.type === "response.completed")?.data.response.qtc.answer,
    }),
  },
} as const;

describe("an answer a constraint holds keeps the whitespace the constraint requires", () => {
  for (const [route, r] of Object.entries(ROUTES)) {
    for (const c of CASES) {
      test(`${route}, ${Object.keys(c.field)[0]}: body and stream are exactly ${JSON.stringify(c.text)}, judged ok`, async () => {
        const whole = await post(`${server.url}${r.path}`, r.body(c.field));
        expect(whole.status).toBe(200);
        expect(r.whole(whole.json)).toEqual({ text: c.text, answer: expect.objectContaining({ ok: true }) });
        const streamed = await post(`${server.url}${r.path}`, r.body({ ...c.field, stream: true }));
        expect(streamed.status).toBe(200);
        const frames = parseSse(streamed.text).filter((f) => f.data !== "[DONE]");
        expect(r.streamed(frames)).toEqual({ text: c.text, answer: expect.objectContaining({ ok: true }) });
      }, LIMIT_MS);
    }
  }

  test("Anthropic messages: the text block is exactly the choice, whole and streamed", async () => {
    const body = { model: "m", max_tokens: 32, messages: [{ role: "user", content: "hi" }], guided_choice: [" x "] };
    const whole = await post(`${server.url}/v1/messages`, body);
    expect(whole.status).toBe(200);
    expect(whole.json.content).toEqual([{ type: "text", text: " x " }]);
    const streamed = await post(`${server.url}/v1/messages`, { ...body, stream: true });
    const text = parseSse(streamed.text)
      .filter((f) => f.data.type === "content_block_delta")
      .map((f) => f.data.delta.text)
      .join("");
    expect(text).toBe(" x ");
  }, LIMIT_MS);
});
