// Issue 52, row 15: an upstream that answers a chat request with SSE keep-alive comments (`: ping`) forever held
// the request open: every comment re-armed the 60 s silence limit. Now only an event with data breaks the silence,
// and `qtc serve --upstream-timeout <ms>` is a deadline from the request's start that nothing extends. Both end
// the request with a 504 upstream_timeout (the CLI is built: the second test runs bin/qtc.js).
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { serve, type Serving } from "../../src/server/serve.js";
import { startFakeUpstream, type FakeUpstream } from "../engines/fake-upstream.js";
import { post } from "../server/helpers.js";

let fake: FakeUpstream;
/** Chat requests the scripted upstreams received. */
let chats = 0;
const timers = new Set<NodeJS.Timeout>();
beforeAll(async () => {
  fake = await startFakeUpstream();
  // Pings forever, every 20 ms; a data event (an empty delta) too when the query asks for it.
  fake.override = (req, res) => {
    if (req.url !== "/v1/chat/completions") return false;
    chats++;
    res.writeHead(200, { "content-type": "text/event-stream" });
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      res.write(fake.behaviour === "garbage" ? `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: null }] })}\n\n` : ": ping\n\n");
    }, 20);
    timers.add(timer);
    res.on("close", () => clearInterval(timer));
    return true;
  };
});
afterAll(async () => {
  for (const t of timers) clearInterval(t);
  await fake?.stop();
});

const request = { model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 16 };

describe("issue 52 row 15: upstream keep-alives extend nothing", () => {
  test("comments do not break the silence limit: 504 upstream_timeout", async () => {
    const serving: Serving = await serve({ model: `openai:${fake.url}`, port: 0, upstreamLimits: { idleTimeoutMs: 300 }, onInternalError: () => undefined });
    try {
      fake.behaviour = "ok";
      const res = await post(`${serving.url}/v1/chat/completions`, request);
      expect(res.status).toBe(504);
      expect(res.json.error.code).toBe("upstream_timeout");
      // The deadline (10 minutes by default) is far off: the silence limit ended it.
    } finally {
      await serving.close();
    }
  }, 60_000);

  test("qtc serve --upstream-timeout: a deadline that data pings do not extend either", async () => {
    fake.behaviour = "garbage"; // here: empty data events, which do re-arm the silence limit
    const child: ChildProcess = spawn(process.execPath, ["bin/qtc.js", "serve", "--upstream", fake.url, "--upstream-kind", "openai", "--upstream-timeout", "500", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout!.on("data", (c: Buffer) => {
          out += c.toString();
          const m = /qtc serve: (http:\/\/\S+)\/v1/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.on("exit", (code) => reject(new Error(`qtc serve exited ${code}`)));
      });
      const res = await post(`${url}/v1/chat/completions`, request);
      expect(res.status).toBe(504);
      expect(res.json.error.code).toBe("upstream_timeout");
      // The silence limit (60 s by default) never fires while data flows: the deadline ended it.
    } finally {
      child.kill("SIGTERM");
      fake.behaviour = "ok";
    }
  }, 60_000);

  test("replicas: a request whose deadline ran out is not tried again on another replica (a second deadline)", async () => {
    const other = await startFakeUpstream();
    other.override = fake.override;
    const before = chats;
    const serving: Serving = await serve({ model: `openai:${fake.url},${other.url}`, port: 0, upstreamLimits: { timeoutMs: 400 }, onInternalError: () => undefined });
    try {
      const res = await post(`${serving.url}/v1/chat/completions`, request);
      expect(res.status).toBe(504);
      expect(res.json.error.code).toBe("upstream_timeout");
      expect(chats - before).toBe(1);
    } finally {
      await serving.close();
      await other.stop();
    }
  }, 60_000);

  test("the flags are in --help with their defaults", async () => {
    const { UPSTREAM_DEFAULTS } = await import("../../src/engines/index.js");
    const help = await new Promise<string>((resolve) => {
      const child = spawn(process.execPath, ["bin/qtc.js", "serve", "--help"], { stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.on("data", (c: Buffer) => (out += c.toString()));
      child.on("exit", () => resolve(out));
    });
    expect(help).toContain("--upstream-timeout <ms>");
    expect(help).toContain(`(default: ${UPSTREAM_DEFAULTS.timeoutMs})`);
    expect(help).toContain("--upstream-idle-timeout <ms>");
  }, 60_000);
});
