// Owns: tests of choosing the engine from a model spec (createRuntime, parseEngineSpec, ENGINE_KINDS): a remote
// engine's `<kind>:URL[,URL…]` goes upstream, anything else is the local engine's.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime, ENGINE_KINDS, LOCAL_ENGINE_KIND, parseEngineSpec } from "../../src/engines/index.js";
import { QtcException } from "../../src/errors.js";
import { CALL_TEXT, startFakeUpstream, type FakeUpstream } from "./fake-upstream.js";

describe("parseEngineSpec", () => {
  test("names the remote engines, and only them", () => {
    expect([...ENGINE_KINDS]).toEqual(["llama-server", "openai", "vllm", "sglang"]);
    expect(parseEngineSpec("vllm:http://127.0.0.1:8000")).toEqual({ kind: "vllm", urls: ["http://127.0.0.1:8000"] });
    expect(parseEngineSpec("sglang:http://a:1,http://b:2")).toEqual({ kind: "sglang", urls: ["http://a:1", "http://b:2"] });
    expect(parseEngineSpec("openai:http://127.0.0.1:1")).toEqual({ kind: "openai", urls: ["http://127.0.0.1:1"] });
    expect(parseEngineSpec("llama-server:http://a:1, http://b:2,")).toEqual({ kind: "llama-server", urls: ["http://a:1", "http://b:2"] });
    for (const local of ["synthetic:tiny", "hf:Qwen/Qwen3-0.6B-GGUF/q.gguf", "qwen3:0.6b", "/models/x.gguf", "", "toString:x", "constructor:y"]) {
      expect(parseEngineSpec(local), local).toBeUndefined();
    }
    expect(LOCAL_ENGINE_KIND).toBe("local");
  });

  test("a remote engine without a URL is invalid_option", () => {
    const e = (() => {
      try {
        parseEngineSpec("openai: ,");
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(QtcException);
    expect((e as QtcException).code).toBe("invalid_option");
  });
});

describe("createRuntime picks the engine the spec names", () => {
  let fake: FakeUpstream;
  beforeAll(async () => {
    fake = await startFakeUpstream();
  });
  afterAll(async () => {
    await fake?.stop();
  });

  test("openai:URL generates upstream (the local engine would fail to load a model named so)", async () => {
    fake.chatText = CALL_TEXT;
    const before = fake.generations;
    const rt = await createRuntime({ model: `openai:${fake.url}` });
    try {
      const out = await rt.generate({ messages: [{ role: "user", content: "read a.ts" }], tools: [{ name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }] });
      expect(out.toolCalls?.map((c) => c.name)).toEqual(["read_file"]);
      expect(fake.generations).toBe(before + 1);
    } finally {
      await rt.close();
    }
  });

  test("any other spec is the local engine's: a missing file is model_not_found", async () => {
    const e = await createRuntime({ model: "/nonexistent/qtc-model.gguf" }).catch((x: unknown) => x);
    expect((e as QtcException).code).toBe("model_not_found");
  });
});
