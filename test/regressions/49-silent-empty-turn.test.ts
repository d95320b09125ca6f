// Issue 49: under Qwen3.5 XML a required tool choice over a pattern-keyed or open-map parameter ended in nothing.
// `qtc grammar --format qwen35 --tool-choice required` said "too small for even the shortest call" at every budget
// (the least cost of an object-valued parameter left its pattern keys out), the library returned raw "", no call,
// no error and finish `length` (the closing walk wrote `/parameter>` into a key forever, so no call "fit"), and a
// repeated key the key guard (JSON formats only) did not see made the rest invalid. Now the call is made, valid, with
// no key twice; a budget no call fits is `budget_too_small` with the figures in the library, the CLI and the server;
// and a minimum of unlisted parameters, which tags cannot spell at any budget, is refused as that.

import Ajv2020 from "ajv/dist/2020.js";
import OpenAI from "openai";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createRuntime } from "../../src/engines/index.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { runCli } from "../helpers/cli.js";
import { tinyQwen35ModelPath } from "../helpers/models.js";
import { type Running, start } from "../server/helpers.js";

const LIMIT_MS = 600_000;
const tool = (name: string, value: object) => ({
  type: "function" as const,
  function: { name, description: `The ${name} tool`, parameters: { type: "object", properties: { v: value }, required: ["v"], additionalProperties: false } },
});
const PATTERN_KEYS = tool("tag", { type: "object", patternProperties: { "^x[0-9]{1,2}$": { type: "integer" } }, additionalProperties: false, minProperties: 3, maxProperties: 5 });
const OPEN_MAP = tool("env", { type: "object", additionalProperties: { type: "string" }, minProperties: 2, maxProperties: 4 });
const ajv = new Ajv2020({ strict: false });

/** The first key written twice in one JSON object of the text (JSON-valued parameters), or undefined. */
function repeatedKey(text: string): string | undefined {
  const objects: ({ keys: Set<string>; expectKey: boolean } | null)[] = [];
  let str: { key: boolean; text: string } | undefined;
  let escaped = false;
  for (const ch of text) {
    if (str) {
      if (escaped) [escaped, str.text] = [false, str.text + ch];
      else if (ch === "\\") [escaped, str.text] = [true, str.text + ch];
      else if (ch === '"') {
        const top = objects[objects.length - 1];
        if (str.key && top) {
          if (top.keys.has(str.text)) return str.text;
          top.keys.add(str.text);
        }
        str = undefined;
      } else str.text += ch;
      continue;
    }
    const top = objects[objects.length - 1];
    if (ch === '"') {
      str = { key: top?.expectKey === true, text: "" };
      if (top) top.expectKey = false;
    } else if (ch === "{") objects.push({ keys: new Set(), expectKey: true });
    else if (ch === "[") objects.push(null);
    else if (ch === "}" || ch === "]") objects.pop();
    else if (ch === "," && top) top.expectKey = true;
  }
  return undefined;
}

function expectValidCalls(t: ReturnType<typeof tool>, calls: readonly { name: string; arguments: string }[], raw: string): void {
  const validate = ajv.compile(t.function.parameters);
  expect(calls.length, raw).toBeGreaterThanOrEqual(1);
  for (const c of calls) {
    expect(c.name).toBe(t.function.name);
    expect(validate(JSON.parse(c.arguments)), `${c.arguments}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  }
  expect(repeatedKey(raw), raw).toBeUndefined();
}

let runtime: Runtime;
let dir: string;
beforeAll(async () => {
  runtime = await createRuntime({ model: await tinyQwen35ModelPath(), threads: 2, contextSize: 2048, sequences: 2, gpu: "cpu" });
  dir = await mkdtemp(join(tmpdir(), "qtc-49-"));
}, LIMIT_MS);
afterAll(async () => {
  await runtime?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the library, Qwen3.5 stand-in, tool choice required", () => {
  test.each([PATTERN_KEYS, OPEN_MAP])("$function.name: seeds 1-2 each end in valid calls, no key twice", async (t) => {
    for (const seed of [1, 2]) {
      const r = await runtime.generate({ messages: [{ role: "user", content: "call it" }], tools: [t], toolChoice: "required", maxTokens: 768, seed });
      expect(r.errors, r.raw).toEqual([]);
      expect(r.finishReason).toBe("tool_calls");
      expectValidCalls(t, r.toolCalls, r.raw);
    }
  }, LIMIT_MS);

  test("a budget no call fits is budget_too_small with the figures, not an empty success", async () => {
    const refused = runtime.generate({ messages: [{ role: "user", content: "call it" }], tools: [OPEN_MAP], toolChoice: "required", maxTokens: 20, seed: 1 });
    await expect(refused).rejects.toMatchObject({ code: "budget_too_small", message: expect.stringMatching(/maxTokens 20 is too small .*: the shortest takes \d+ tokens and 20 are left; raise maxTokens to \d+ or more/) });
  }, LIMIT_MS);
});

describe("the CLI", () => {
  test("qtc grammar --format qwen35 --tool-choice required compiles the pattern-keyed tool", async () => {
    const file = join(dir, "tag.json");
    await writeFile(file, JSON.stringify([PATTERN_KEYS]));
    const r = await runCli(["grammar", "--tools", file, "--format", "qwen35", "--tool-choice", "required", "--max-tokens", "768"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^root ::=/m);
  });

  test("a minimum of parameters that are not listed, which tags cannot spell, is refused as that, not as a budget", async () => {
    const file = join(dir, "open-params.json");
    await writeFile(file, JSON.stringify([{ name: "env", parameters: { type: "object", additionalProperties: { type: "string" }, minProperties: 2 } }]));
    for (const format of ["qwen35", "qwen3coder"]) {
      const r = await runCli(["grammar", "--tools", file, "--format", format, "--tool-choice", "required", "--max-tokens", "4000"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`tool "env": minProperties needs 2 parameters beyond those listed in properties, and the ${format} format cannot require parameters that are not listed`));
      expect(r.stderr).not.toMatch(/too small/);
    }
  });

  test("qtc run with a budget no call fits: exit 2 and budget_too_small's message, no stack trace", async () => {
    const file = join(dir, "env.json");
    await writeFile(file, JSON.stringify([OPEN_MAP]));
    const r = await runCli(["run", "--model", "synthetic:qwen3.5-tiny", "--tools", file, "--prompt", "call it", "--tool-choice", "required", "--max-tokens", "20", "--seed", "1", "--threads", "1", "--context-size", "1024", "--gpu", "cpu"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/maxTokens 20 is too small .*raise maxTokens/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, LIMIT_MS);
});

describe("qtc serve", () => {
  let server: Running;
  let openai: OpenAI;
  beforeAll(async () => {
    server = await start({ runtime, parallel: 2 });
    openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "local", maxRetries: 0 });
  });
  afterAll(async () => {
    await server?.app.close();
  });

  test.each([false, true])("pattern keys under required (stream %s): 200 with valid tool_calls", async (stream) => {
    const body = { model: "m", messages: [{ role: "user" as const, content: "call it" }], tools: [PATTERN_KEYS], tool_choice: "required" as const, max_tokens: 512, seed: 3 };
    let calls: { name: string; arguments: string }[] = [];
    if (stream) {
      const parts = new Map<number, { name: string; arguments: string }>();
      for await (const chunk of await openai.chat.completions.create({ ...body, stream: true })) {
        for (const d of chunk.choices[0]?.delta.tool_calls ?? []) {
          const part = parts.get(d.index) ?? { name: "", arguments: "" };
          part.name += d.function?.name ?? "";
          part.arguments += d.function?.arguments ?? "";
          parts.set(d.index, part);
        }
      }
      calls = [...parts.values()];
    } else {
      const r = await openai.chat.completions.create(body);
      expect(r.choices[0]!.finish_reason).toBe("tool_calls");
      calls = r.choices[0]!.message.tool_calls!.map((c) => (c.type === "function" ? c.function : { name: "", arguments: "" }));
    }
    expectValidCalls(PATTERN_KEYS, calls, calls.map((c) => c.arguments).join("\n"));
  }, LIMIT_MS);

  test("a budget no call fits, streamed: 400 budget_too_small before any 200", async () => {
    const r = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "call it" }], tools: [OPEN_MAP], tool_choice: "required", max_tokens: 20, stream: true }),
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe("budget_too_small");
  }, LIMIT_MS);
});
