// Issue 30, item 9: a replica whose `/props` answered 450 MB drove qtc's RSS to 1.4 GB (the 16 MiB bound held for
// completions only, and `/props` was read whole before its size was checked). Every upstream reply is bounded
// as it is read: metadata (`/props`, the added tokens) at 1 MiB, every other reply at maxReplyBytes.

import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { createLlamaServerRuntime } from "../../src/engines/index.js";
import { METADATA_MAX_BYTES } from "../../src/engines/llama-server.js";
import { startFakeUpstream, type FakeUpstream } from "../engines/fake-upstream.js";

/** RSS growth allowed while a huge reply is refused: generous for GC noise, far below the reply's size. */
const RSS_GROWTH_BOUND = 128 * 1024 * 1024;

let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeUpstream();
});
afterAll(async () => {
  await fake?.stop();
});
beforeEach(() => {
  fake.override = undefined;
});

/** Answer `path` with a JSON object padded to `bytes`, written in 1 MiB pieces (stops when the client leaves). */
function padded(path: string, bytes: number): void {
  const piece = "x".repeat(1024 * 1024);
  fake.override = (req, res) => {
    if (req.url !== path) return false;
    res.writeHead(200, { "content-type": "application/json" });
    let sent = 0;
    res.write('{"model_path": "/m.gguf", "pad": "');
    const more = () => {
      while (sent < bytes && !res.destroyed) {
        sent += piece.length;
        if (!res.write(piece)) return void res.once("drain", more);
      }
      if (!res.destroyed) res.end('"}');
    };
    res.on("close", () => (sent = bytes));
    more();
    return true;
  };
}

describe("upstream metadata replies are bounded", () => {
  test("a /props reply over 1 MiB (here 8 MiB, under the completion bound) is refused", async () => {
    padded("/props", 8 * 1024 * 1024);
    await expect(createLlamaServerRuntime(fake.url)).rejects.toMatchObject({ code: "upstream_error", message: expect.stringContaining(`${METADATA_MAX_BYTES} bytes`) });
  });

  test("a 400 MiB /props is cut off at the bound: RSS grows far less than the reply", async () => {
    padded("/props", 400 * 1024 * 1024);
    let peak = process.memoryUsage.rss();
    const before = peak;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
    try {
      await expect(createLlamaServerRuntime(fake.url)).rejects.toMatchObject({ code: "upstream_error" });
    } finally {
      clearInterval(timer);
    }
    expect(peak - before).toBeLessThan(RSS_GROWTH_BOUND);
  }, 30_000);

  test("the added tokens' /tokenize reply is bounded the same way", async () => {
    padded("/tokenize", 8 * 1024 * 1024);
    await expect(createLlamaServerRuntime(fake.url)).rejects.toMatchObject({ code: "upstream_error" });
  });
});
