// Issue 25: a 400's log line showed only the status, so an operator could not tell which field a client got wrong.
// The request line now names the error code and the request field at fault.

import { Writable } from "node:stream";
import { afterEach, describe, expect, test } from "vitest";
import { serverLogger } from "../../src/server/log-format.js";
import { fakeRuntime } from "../server/fake-runtime.js";
import { post, type Running, start } from "../server/helpers.js";

function sink(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}

let server: Running | undefined;
afterEach(async () => {
  await server?.app.close();
  server = undefined;
});

describe("the request log line of a refusal", () => {
  test("names the code and the field (json)", async () => {
    const out = sink();
    server = await start({ runtime: fakeRuntime(), logger: serverLogger("info", "json", out.stream) });
    const res = await post(`${server.url}/v1/chat/completions`, { model: "m", messages: [{ role: "user", content: "hi" }], tool_choice: "required" });
    expect(res.status).toBe(400);
    await new Promise((r) => setTimeout(r, 50));
    const line = out.lines.map((l) => JSON.parse(l)).find((l) => l.msg === "request" && l.status === 400);
    expect([line.code, line.field]).toEqual(["invalid_tool_choice", "tool_choice"]);
  });

  test("names the code and the field (text), and a refusal without a field names only the code", async () => {
    const out = sink();
    server = await start({ runtime: fakeRuntime(), logger: serverLogger("info", "text", out.stream) });
    await post(`${server.url}/v1/messages`, { model: "m", max_tokens: 8, messages: [{ role: "user", content: [{ type: "video" }] }] });
    await post(`${server.url}/v1/nope`, {});
    await new Promise((r) => setTimeout(r, 50));
    const lines = out.lines.filter((l) => l.includes("request"));
    expect(lines.find((l) => l.includes("status=400"))).toMatch(/code=unsupported_parameter field=messages\[0\]\.content\[0\]\.type/);
    const notFound = lines.find((l) => l.includes("status=404"))!;
    expect(notFound).toMatch(/code=not_found/);
    expect(notFound).not.toMatch(/field=/);
  });
});
