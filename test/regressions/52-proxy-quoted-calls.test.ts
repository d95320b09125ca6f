// Issue 52, rows 10 and 11: `qtc serve` in front of an OpenAI-style upstream (`--upstream-kind openai`) whose
// text only quotes a call. A call in an inline code span, on a 4-space indented code line or under an example
// intro is answer text, never a tool call; so is a call ending an unclosed think block when the output was cut
// (`finish_reason: length`), when it follows "Example of the format:", or when it sits between the two
// `</think>` of a nested think. Before, each came back as a `delete_all` tool call.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createOpenAIChatRuntime } from "../../src/engines/index.js";
import { startFakeUpstream, type FakeUpstream } from "../engines/fake-upstream.js";
import { post, start, type Running } from "../server/helpers.js";

const TOOLS = [
  { type: "function", function: { name: "delete_all", description: "Delete every file", parameters: { type: "object", properties: {} } } },
  { type: "function", function: { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } },
];
const CALL = '<tool_call>{"name": "delete_all", "arguments": {}}</tool_call>';
const CALL_LINES = '<tool_call>\n{"name": "delete_all", "arguments": {}}\n</tool_call>';

let fake: FakeUpstream;
let server: Running;
let finishReason = "stop";
beforeAll(async () => {
  fake = await startFakeUpstream();
  // The scripted upstream streams `chatText` in pieces and ends with `finishReason`.
  fake.override = (req, res) => {
    if (req.url !== "/v1/chat/completions") return false;
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (let i = 0; i < fake.chatText.length; i += 5) res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: fake.chatText.slice(i, i + 5) }, finish_reason: null }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: finishReason }] })}\n\n`);
    res.end("data: [DONE]\n\n");
    return true;
  };
  server = await start({ runtime: await createOpenAIChatRuntime(fake.url), onInternalError: () => undefined });
});
afterAll(async () => {
  await server?.app.close();
  await fake?.stop();
});

async function ask(text: string, stream: boolean, finish = "stop") {
  fake.chatText = text;
  finishReason = finish;
  const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: [{ role: "user", content: "how do I clean up?" }], tools: TOOLS, max_tokens: 256, stream });
  expect(res.status).toBe(200);
  return res;
}

/** The non-streamed answer: no tool call, and the content (when asked) keeps the quoted call. */
async function expectNoCall(text: string, finish = "stop", content?: string) {
  const res = await ask(text, false, finish);
  const message = res.json.choices[0].message;
  expect(message.tool_calls ?? []).toEqual([]);
  expect(res.json.choices[0].finish_reason).not.toBe("tool_calls");
  if (content !== undefined) expect(message.content).toBe(content);
  const streamed = await ask(text, true, finish);
  expect(streamed.text).not.toContain('"tool_calls"');
  expect(streamed.text).not.toContain("delete_all\",\"arguments");
}

describe("issue 52 row 10: a quoted call in the upstream's text is never run", () => {
  test("an inline code span keeps the call as text", async () => {
    const text = "Use `" + CALL + "` to delete.";
    await expectNoCall(text, "stop", text);
  });

  test("a 4-space indented code block keeps the call as text", async () => {
    const text = "The call looks like this\n\n    " + CALL + "\n\nDo not run it.";
    await expectNoCall(text, "stop", text);
  });

  test("an example intro keeps the call (and the one right after it) as text", async () => {
    const text = "Example of the format:\n" + CALL_LINES + "\n" + CALL_LINES;
    await expectNoCall(text, "stop", text);
  });

  test("an unquoted call in the same conversation still runs", async () => {
    const res = await ask('I will read it.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>', false);
    expect(res.json.choices[0].message.tool_calls.map((c: { function: { name: string } }) => c.function.name)).toEqual(["read_file"]);
  });
});

describe("issue 52 row 11: a call ending an unclosed think block is no action when quoted, cut or nested", () => {
  test("the output was cut (finish_reason length)", async () => {
    await expectNoCall("<think>The tool returned this text, which I should not follow:\n" + CALL_LINES, "length");
  });

  test("the call follows 'Example of the format:'", async () => {
    await expectNoCall("<think>I must answer in the tool format. Example of the format:\n" + CALL_LINES);
  });

  test("the call sits between the two </think> of a nested think", async () => {
    await expectNoCall("<think>Outer thoughts <think>inner thoughts</think>\n" + CALL_LINES + "\n</think>The end.");
    await expectNoCall("<think>Outer thoughts <think>inner thoughts</think>\n" + CALL_LINES);
  });

  test("a complete call ending an unclosed think block, not cut, not quoted, still runs (issue 43)", async () => {
    const res = await ask('<think>I need the file.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>', false);
    expect(res.json.choices[0].message.tool_calls.map((c: { function: { name: string } }) => c.function.name)).toEqual(["read_file"]);
  });
});
