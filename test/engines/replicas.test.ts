// The replica set's routing, over fake upstream runtimes: a request is retried on another replica when its first
// one fails before anything streamed, a replica whose health check timed out is still tried before a 503, and a
// request every replica refused is answered upstream_unavailable.

import { describe, expect, test } from "vitest";
import { QtcException } from "../../src/errors.js";
import { createReplicaRuntime, type UpstreamRuntime } from "../../src/engines/replicas.js";
import { upstreamFailure } from "../../src/engines/upstream-http.js";
import type { GenerateEvent, GenerateRequest } from "../../src/runtime/types.js";

interface Fake extends UpstreamRuntime {
  served: number;
  alive: boolean;
  answersHealth: boolean;
}

function fakeReplica(url: string): Fake {
  const fake = {
    url,
    served: 0,
    alive: true,
    answersHealth: true,
    format: "hermes",
    modelInfo: { name: url, synthetic: true, path: "" },
    settings: { gpu: false, binary: "remote", threads: 0, contextSize: 4096, sequences: 1 },
    load: { sequences: 1, busy: 0, waiting: 0 },
    async healthy() {
      return fake.alive && fake.answersHealth;
    },
    async *stream(): AsyncGenerator<GenerateEvent, void, void> {
      if (!fake.alive) throw upstreamFailure("upstream_unavailable", `${url} refused the connection`);
      fake.served++;
      yield { type: "text", text: url } as unknown as GenerateEvent;
    },
    generate() {
      throw new Error("not used");
    },
    async close() {},
  };
  return fake as unknown as Fake;
}

const REQUEST = { messages: [{ role: "user", content: "hi" }] } as unknown as GenerateRequest;

async function drain(stream: AsyncGenerator<GenerateEvent, void, void>): Promise<string[]> {
  const texts: string[] = [];
  for await (const e of stream) texts.push((e as unknown as { text: string }).text);
  return texts;
}

async function replicaSet(fakes: Fake[], healthIntervalMs = 60_000) {
  const byUrl = new Map(fakes.map((f) => [f.modelInfo.name, f]));
  return createReplicaRuntime("set", [...byUrl.keys()], async (url) => byUrl.get(url)!, { healthIntervalMs, healthTimeoutMs: 50 });
}

function members(runtime: unknown) {
  return (runtime as { members: { url: string; healthy: boolean }[] }).members;
}

describe("replica set routing", () => {
  test("a replica that fails before streaming is taken out and the request is served by the other", async () => {
    const [a, b] = [fakeReplica("a"), fakeReplica("b")];
    const set = await replicaSet([a, b]);
    a.alive = false;
    expect(await drain(set.stream(REQUEST))).toEqual(["b"]);
    expect(members(set).find((m) => m.url === "a")!.healthy).toBe(false);
    // The next request goes straight to b, the one in rotation.
    expect(await drain(set.stream(REQUEST))).toEqual(["b"]);
    expect(b.served).toBe(2);
    await set.close();
  });

  test("when every replica is out of rotation, one not yet tried is still tried before answering 503", async () => {
    const [a, b] = [fakeReplica("a"), fakeReplica("b")];
    const set = await replicaSet([a, b], 20);
    // b dies; a is alive but too busy to answer its health check in time (a loaded machine).
    b.alive = false;
    a.answersHealth = false;
    await new Promise((r) => setTimeout(r, 120));
    expect(members(set).every((m) => !m.healthy)).toBe(true);
    expect(await drain(set.stream(REQUEST))).toEqual(["a"]);
    await set.close();
  });

  test("a replica out of rotation that answers a request is back in rotation", async () => {
    const [a, b] = [fakeReplica("a"), fakeReplica("b")];
    const set = await replicaSet([a, b]);
    a.alive = false;
    b.alive = false;
    await expect(drain(set.stream(REQUEST))).rejects.toThrow(/no upstream answered/);
    expect(members(set).map((m) => m.healthy)).toEqual([false, false]);
    a.alive = true;
    expect(await drain(set.stream(REQUEST))).toEqual(["a"]);
    expect(members(set).map((m) => m.healthy)).toEqual([true, false]);
    await set.close();
  });

  test("every replica refuses → upstream_unavailable naming how many were tried", async () => {
    const [a, b] = [fakeReplica("a"), fakeReplica("b")];
    const set = await replicaSet([a, b]);
    a.alive = false;
    b.alive = false;
    const error = await drain(set.stream(REQUEST)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(QtcException);
    expect((error as QtcException).code).toBe("upstream_unavailable");
    expect((error as QtcException).message).toMatch(/2 tried of 2 configured/);
    await set.close();
  });
});
