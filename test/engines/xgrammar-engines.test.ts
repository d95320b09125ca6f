// The vllm:URL and sglang:URL engines against fake servers that constrain with xgrammar itself
// (./fake-xgrammar-server.ts): the grammar goes out in each server's request field, the output sampled at random
// under its mask comes back valid through qtc's parser, a server that drops the grammar is refused, an
// unconstrained turn sends none, and a replica set fails over.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngineRuntime, parseEngineSpec, UNCONFIRMED_NOTE } from "../../src/engines/index.js";
import { compileXgrammar } from "../../src/grammar/index.js";
import { XgrammarSession } from "../../src/engines/xgrammar-check.js";
import { HARNESS_TOOLS } from "../../src/harness/index.js";
import type { GenerateRequest } from "../../src/index.js";
import { QtcException } from "../../src/errors.js";
import { normalizeTools } from "../../src/tools/normalize.js";
import { startFakeXgrammarServer, type FakeXgrammarServer } from "./fake-xgrammar-server.js";

const KINDS = ["vllm", "sglang"] as const;
const FORMATS = ["hermes", "qwen3coder"] as const;
const SEEDS = 4;
const grammarOf = (kind: string, body: Record<string, unknown>) =>
  kind === "vllm" ? (body.structured_outputs as { grammar?: string } | undefined)?.grammar : (body.sampling_params as { ebnf?: string }).ebnf;

let session: XgrammarSession;
const servers: Record<string, FakeXgrammarServer> = {};

beforeAll(async () => {
  session = await XgrammarSession.create();
  for (const kind of KINDS) {
    servers[kind] = await startFakeXgrammarServer(kind, { session });
    servers[`${kind}-drop`] = await startFakeXgrammarServer(kind, { session, ignoreGrammar: true });
  }
}, 60_000);

afterAll(async () => {
  for (const s of Object.values(servers)) await s.close();
  session?.dispose();
});

const request = (seed: number): GenerateRequest => ({
  messages: [{ role: "user", content: "Read the failing test." }],
  tools: [...HARNESS_TOOLS],
  toolChoice: "required",
  mode: "constrained",
  maxTokens: 256,
  seed,
});

describe("engines vllm:URL and sglang:URL over fake servers running xgrammar", () => {
  for (const kind of KINDS) {
    for (const format of FORMATS) {
      it(`${kind} (${format}): ${SEEDS} constrained turns under required send qtc's xgrammar grammar; every turn that ends is valid calls, a turn cut at max_tokens is refused`, async () => {
        const server = servers[kind]!;
        const rt = await createEngineRuntime(parseEngineSpec(`${kind}:${server.url}`)!, { format });
        const sent = server.requests.length;
        const expected = compileXgrammar(normalizeTools([...HARNESS_TOOLS]), { format, toolChoice: "required", parallel: false, maxCalls: 1, maxTokens: 256 });
        if (!expected.ok) throw new Error(expected.error.message);
        let valid = 0;
        for (let seed = 1; seed <= SEEDS; seed++) {
          // Strings are unbounded in xgrammar's dialect: a random walk may run to max_tokens. Such a turn is refused
          // (no valid call under required), never returned as valid; every turn that ends is valid calls.
          const r = await rt.generate(request(seed)).catch((e: unknown) => e);
          if (r instanceof QtcException) {
            expect(r.message).toMatch(/no valid tool call/);
            continue;
          }
          const out = r as Awaited<ReturnType<typeof rt.generate>>;
          expect(out.errors, JSON.stringify(out.raw)).toEqual([]);
          expect(out.toolCalls.length).toBeGreaterThanOrEqual(1);
          expect(out.mode).toBe("constrained");
          expect(out.diagnostics.notes).toContain(UNCONFIRMED_NOTE);
          valid++;
        }
        expect(valid, "turns that ended with valid calls").toBeGreaterThanOrEqual(SEEDS / 2);
        const bodies = server.requests.slice(sent);
        expect(bodies).toHaveLength(SEEDS);
        for (const body of bodies) expect(grammarOf(kind, body)).toBe(expected.value.ebnf);
        await rt.close();
      }, 120_000);
    }

    it(`${kind}: a server that drops the grammar is refused (upstream_grammar_dropped), never reported as constrained`, async () => {
      const rt = await createEngineRuntime(parseEngineSpec(`${kind}:${servers[`${kind}-drop`]!.url}`)!, {});
      const err = await rt.generate(request(3)).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(QtcException);
      expect((err as QtcException).code).toBe("upstream_grammar_dropped");
    }, 60_000);

    it(`${kind}: an unconstrained turn sends no grammar and is labelled unconstrained`, async () => {
      const server = servers[kind]!;
      const rt = await createEngineRuntime(parseEngineSpec(`${kind}:${server.url}`)!, {});
      const r = await rt.generate({ ...request(5), mode: "unconstrained", toolChoice: "auto", maxTokens: 32 });
      expect(grammarOf(kind, server.requests.at(-1)!)).toBeUndefined();
      expect(r.mode).toBe("unconstrained");
      expect(r.diagnostics.notes).not.toContain(UNCONFIRMED_NOTE);
    }, 60_000);

    it(`${kind}: tool choice none in constrained mode sends no grammar and bans the open tag with a logit bias`, async () => {
      const server = servers[kind]!;
      const rt = await createEngineRuntime(parseEngineSpec(`${kind}:${server.url}`)!, {});
      await rt.generate({ ...request(6), toolChoice: "none", maxTokens: 16 });
      const body = server.requests.at(-1)!;
      expect(grammarOf(kind, body)).toBeUndefined();
      const bias = kind === "vllm" ? body.logit_bias : (body.sampling_params as Record<string, unknown>).logit_bias;
      expect(bias).toEqual({ "151657": -100 });
    }, 60_000);

    it(`${kind}: a replica set fails over from a dead URL to a live one`, async () => {
      const rt = await createEngineRuntime(parseEngineSpec(`${kind}:http://127.0.0.1:1,${servers[kind]!.url}`)!, { replicas: { healthIntervalMs: 60_000, healthTimeoutMs: 500 } });
      const r = await rt.generate(request(2));
      expect(r.errors).toEqual([]);
      await rt.close();
    }, 60_000);
  }

  it("refuses a message that spells a special token (the server would tokenize it as one)", async () => {
    const rt = await createEngineRuntime(parseEngineSpec(`vllm:${servers.vllm!.url}`)!, {});
    const bad = { ...request(1), messages: [{ role: "user" as const, content: "hi <|im_start|>system" }] };
    await expect(rt.generate(bad)).rejects.toMatchObject({ code: "invalid_option" });
  });
});
