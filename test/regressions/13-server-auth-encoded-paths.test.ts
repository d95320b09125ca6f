// Issue 13: the API key check read the raw URL while the router decoded it, so `POST /%761/chat/completions`
// answered 200 without the key. Every path, however it is spelt, needs the key unless it routes to /health.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fakeRuntime } from "../server/fake-runtime.js";
import { rawRequest, READ_FILE_OPENAI, type Running, start } from "../server/helpers.js";

const KEY = "sekrit-key";
let server: Running;
const user = [{ role: "user", content: "hi" }];
const CHAT = { model: "m", messages: user, tools: [READ_FILE_OPENAI], tool_choice: "required" };
const MESSAGES = { model: "m", max_tokens: 16, messages: user };

beforeAll(async () => {
  server = await start({ runtime: fakeRuntime(), apiKey: KEY });
});
afterAll(async () => {
  await server.app.close();
});

/** [method, raw path, body]: spellings a router may decode, normalise or match loosely. */
const PATHS: Array<[string, string, unknown]> = [
  ["POST", "/%761/chat/completions", CHAT],
  ["POST", "/v%31/chat/completions", CHAT],
  ["POST", "/%76%31/chat/completions", CHAT],
  ["POST", "/v1/%63hat/completions", CHAT],
  ["POST", "/v1/chat/completions?x=1", CHAT],
  ["POST", "/v1/chat%2Fcompletions", CHAT],
  ["POST", "/v1/chat%2fcompletions", CHAT],
  ["POST", "/v1%2Fchat%2Fcompletions", CHAT],
  ["POST", "//v1/chat/completions", CHAT],
  ["POST", "/v1//chat/completions", CHAT],
  ["POST", "/v1/chat/completions/", CHAT],
  ["POST", "/V1/chat/completions", CHAT],
  ["POST", "/v1/../v1/chat/completions", CHAT],
  ["POST", "/./v1/chat/completions", CHAT],
  ["POST", "/v1/chat/completions;x", CHAT],
  ["POST", "/%76%31/messages", MESSAGES],
  ["POST", "/%2576%31/messages", MESSAGES],
  ["POST", "/v1/%6d%65ssages", MESSAGES],
  ["POST", "/v1/messages?beta=true", MESSAGES],
  ["POST", "/health/../v1/messages", MESSAGES],
  ["GET", "/%761/models", undefined],
  ["GET", "/%76%31/%6d%6f%64%65%6c%73", undefined],
  ["GET", "/v1/models?", undefined],
  ["GET", "/v1/models?key=sekrit-key", undefined],
  ["GET", "/v1/models/", undefined],
  ["GET", "/v1/models/fake-model", undefined],
  ["GET", "/v1/models/%66ake-model", undefined],
  ["GET", "/v1%2Fmodels", undefined],
  ["GET", "//v1/models", undefined],
  ["GET", "/v1/Models", undefined],
  ["HEAD", "/%761/models", undefined],
  ["GET", "/no-such-route", undefined],
];

describe("with --api-key, no spelling of a path gets past the key", () => {
  test.each(PATHS)("%s %s without a key → 401", async (method, path, body) => {
    const res = await rawRequest(server.url, method, path, body);
    expect(res.status).toBe(401);
  });

  test.each(PATHS)("%s %s with a wrong key → 401", async (method, path, body) => {
    const res = await rawRequest(server.url, method, path, body, { authorization: "Bearer wrong" });
    expect(res.status).toBe(401);
  });

  test("the routes still answer encoded paths when the key is given", async () => {
    const auth = { authorization: `Bearer ${KEY}` };
    expect((await rawRequest(server.url, "POST", "/%761/chat/completions", CHAT, auth)).status).toBe(200);
    expect((await rawRequest(server.url, "POST", "/%76%31/messages", MESSAGES, { "x-api-key": KEY })).status).toBe(200);
    expect((await rawRequest(server.url, "GET", "/%761/models", undefined, auth)).status).toBe(200);
  });

  test("/health stays open, however it is spelt", async () => {
    expect((await rawRequest(server.url, "GET", "/health")).status).toBe(200);
    expect((await rawRequest(server.url, "GET", "/%68ealth")).status).toBe(200);
  });

  test("a 401 on an encoded Anthropic path is in Anthropic's shape", async () => {
    const res = await rawRequest(server.url, "POST", "/%76%31/messages", MESSAGES);
    expect(res.json).toMatchObject({ type: "error", error: { type: "authentication_error" } });
  });
});
