// Issue 52 (row 6): 256 choices sharing a 1,000-byte prefix under max_tokens 400 answered 500 "forced tokens
// overran the token budget": the grammar forces the shared prefix as canonical tokens in one step, and those ran
// past the budget. Now it is a 400 `budget_too_small` naming max_tokens, with the figure, on every route, whether
// the up-front bound sees it (a prefix of spaced words) or only the forced tokens do (one long run of letters,
// whose tokens the bound cannot count), and a budget that holds the forced text is served.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { expectAnthropicError, expectOpenAIError, post } from "../server/helpers.js";
import { type ServeCli, startServeCli } from "../helpers/cli.js";

let baseURL = "";
let server: ServeCli | undefined;

beforeAll(async () => {
  server = await startServeCli(["--context-size", "4096"]);
  baseURL = server.baseURL;
}, 180_000);

afterAll(() => server?.stop());

/** 1,000 letters from a fixed pseudo-random sequence: one pre-tokenizer piece, hundreds of tokens. */
function letters(n: number): string {
  let x = 12345;
  let out = "";
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    out += String.fromCharCode(97 + (x % 26));
  }
  return out;
}

const choicesOf = (prefix: string) => Array.from({ length: 256 }, (_, i) => `${prefix}${i}`);
const LETTERS = choicesOf(letters(1000));
const WORDS = choicesOf("x ".repeat(500));
const MESSAGES = [{ role: "user", content: "Pick one." }];

describe("issue 52 row 6: forced text longer than the budget is budget_too_small, never a 500", () => {
  for (const [name, choices] of [["one run of letters (seen by the forced tokens)", LETTERS], ["spaced words (seen up front)", WORDS]] as const) {
    test(`${name}: chat, streamed and not, and completions`, async () => {
      for (const stream of [false, true]) {
        const res = await post(`${baseURL}/v1/chat/completions`, { model: "tiny", messages: MESSAGES, guided_choice: choices, max_tokens: 400, seed: 1, stream });
        expectOpenAIError(res, 400, "budget_too_small", "max_tokens");
        expect(res.json.error.message).toMatch(/maxTokens 400 /);
      }
      const completions = await post(`${baseURL}/v1/completions`, { model: "tiny", prompt: "Pick: ", guided_choice: choices, max_tokens: 400, seed: 1 });
      expectOpenAIError(completions, 400, "budget_too_small", "max_tokens");
    });
  }

  test("Responses and Anthropic messages too", async () => {
    const responses = await post(`${baseURL}/v1/responses`, { model: "tiny", input: "Pick one.", guided_choice: LETTERS, max_output_tokens: 400 });
    expectOpenAIError(responses, 400, "budget_too_small", "max_output_tokens");
    const messages = await post(`${baseURL}/v1/messages`, { model: "tiny", messages: MESSAGES, max_tokens: 400, "x-qtc-constraint": { choice: LETTERS } });
    expectAnthropicError(messages, 400, "invalid_request_error");
    expect(messages.json.error.message).toMatch(/maxTokens 400 /);
  });

  test("a budget that holds the forced text is served with one of the choices", async () => {
    const res = await post(`${baseURL}/v1/chat/completions`, { model: "tiny", messages: MESSAGES, guided_choice: LETTERS, max_tokens: 1500, seed: 1 });
    expect(res.status, res.text).toBe(200);
    expect(LETTERS).toContain(res.json.choices[0].message.content);
  });
});
