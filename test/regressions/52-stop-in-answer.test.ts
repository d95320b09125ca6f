// Issue 52, row 13: a stop sequence inside a constrained answer (`guided_choice: ["abcdef"], stop: ["cd"]`) gave
// "ab" with no `qtc.answer`. `qtc.answer` is now present with every constrained answer, and says how it ended: the
// text before the stop is judged as it stands, and an answer it no longer holds is refused as `stop_sequence`.

import { describe, expect, test } from "vitest";
import { useTinyServer } from "../helpers/tiny-server.js";
import { parseSse, post } from "../server/helpers.js";

const server = useTinyServer();
const LIMIT_MS = 120_000;
const cut = { ok: false, constraint: "choice", ended: "stop_sequence", reason: "stop_sequence", message: expect.stringContaining('"cd"') };

describe("a stop sequence inside a constrained answer", () => {
  test("chat, whole and streamed: content cut before the stop, qtc.answer says it was cut there", async () => {
    const body = { model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 32, guided_choice: ["abcdef"], stop: ["cd"] };
    const whole = await post(`${server.url}/v1/chat/completions`, body);
    expect(whole.status).toBe(200);
    expect(whole.json.choices[0].message.content).toBe("ab");
    expect(whole.json.qtc.answer).toEqual(cut);
    const streamed = await post(`${server.url}/v1/chat/completions`, { ...body, stream: true });
    const frames = parseSse(streamed.text).filter((f) => f.data !== "[DONE]");
    expect(frames.map((f) => f.data.choices?.[0]?.delta?.content ?? "").join("")).toBe("ab");
    expect(frames.at(-1)!.data.qtc.answer).toEqual(cut);
  }, LIMIT_MS);

  test("text completions and Anthropic messages say the same", async () => {
    const completion = await post(`${server.url}/v1/completions`, { model: "m", prompt: "hi", max_tokens: 32, guided_choice: ["abcdef"], stop: ["cd"] });
    expect([completion.json.choices[0].text, completion.json.qtc?.answer]).toEqual(["ab", cut]);
    const message = await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 32, messages: [{ role: "user", content: "hi" }], guided_choice: ["abcdef"], stop_sequences: ["cd"] });
    expect([message.json.content, message.json.stop_reason, message.json.qtc.answer]).toEqual([[{ type: "text", text: "ab" }], "stop_sequence", cut]);
  }, LIMIT_MS);

  test("an answer the model ended says so", async () => {
    const r = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 32, guided_choice: ["abcdef"], stop: ["zz"] });
    expect([r.json.choices[0].message.content, r.json.qtc.answer]).toEqual(["abcdef", { ok: true, constraint: "choice", ended: "stop" }]);
  }, LIMIT_MS);
});
