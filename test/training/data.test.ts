// Checks the exported training data the way a trainer reads it: OpenAI chat fine-tuning JSONL (roles,
// tool_calls with arguments as JSON strings, every call valid against its tool) and rendered samples whose text
// is the chat template's bytes with the assistant span marked.

import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderPrompt } from "../../src/prompt/render.js";
import { compileValidators } from "../../src/tools/validators.js";
import { parse } from "../../src/parse/parser.js";
import { DATASET_FILES, makeDataset, renderSamples, splitTaskIds, type Conversation, type DatasetSummary } from "../../src/training/index.js";

const TASKS = path.resolve("bench/tasks");
let out: string;
let summary: DatasetSummary;
let lines: Conversation[];

beforeAll(async () => {
  out = await fs.mkdtemp(path.join(os.tmpdir(), "qtc-data-"));
  summary = await makeDataset({ tasksDir: TASKS, outDir: out });
  lines = (await fs.readFile(path.join(out, DATASET_FILES.openai), "utf8")).trim().split("\n").map((l) => JSON.parse(l) as Conversation);
}, 120_000);
afterAll(() => fs.rm(out, { recursive: true, force: true }));

describe("the split", () => {
  it("is fixed: sorted ids alternate train, test; halves are disjoint and cover every task", async () => {
    expect(splitTaskIds(["c", "a", "d", "b"])).toEqual({ train: ["a", "c"], test: ["b", "d"] });
    const ids = (await fs.readdir(TASKS)).sort();
    expect(summary.train.length + summary.test.length).toBe(ids.length);
    expect(summary.train.filter((id) => summary.test.includes(id))).toEqual([]);
    expect(new Set(lines.map((c) => c.task))).toEqual(new Set(summary.train));
  });
});

describe("OpenAI chat fine-tuning JSONL", () => {
  it("has one demonstration per train task, in the OpenAI shape, with every call valid against its tool", () => {
    expect(summary.demonstrations).toBe(summary.train.length);
    for (const c of lines) {
      expect(c.tools.every((t) => t.type === "function" && typeof t.function.name === "string")).toBe(true);
      const tools = compileValidators(c.tools);
      expect(c.messages[0]!.role).toBe("system");
      expect(c.messages[1]!.role).toBe("user");
      expect(c.messages[c.messages.length - 1]!.role).toBe("assistant");
      const open = new Set<string>();
      for (const m of c.messages) {
        expect(["system", "user", "assistant", "tool"]).toContain(m.role);
        if (m.role === "tool") {
          expect(open.delete(m.tool_call_id!)).toBe(true); // answers a call made before it
          expect(typeof m.content).toBe("string");
        }
        if (m.role !== "assistant" || !m.tool_calls) continue;
        for (const call of m.tool_calls) {
          expect(call.type).toBe("function");
          expect(typeof call.function.arguments).toBe("string");
          const args = JSON.parse(call.function.arguments as string) as unknown;
          const tool = tools.get(call.function.name);
          expect(tool, call.function.name).toBeDefined();
          expect(tool!.validate(args)).toBeNull();
          open.add(call.id!);
        }
      }
      expect(open.size).toBe(0);
    }
  });

  it("carries the harness's real tool results: the reference fix's run_tests passes", () => {
    for (const c of lines) {
      const idx = c.messages.findIndex((m) => m.role === "assistant" && m.tool_calls?.[0]?.function.name === "run_tests");
      const result = c.messages[idx + 1]!;
      expect(result.role).toBe("tool");
      expect(result.content).toMatch(/pass/i);
      expect(result.content).not.toMatch(/^Error:/);
    }
  });
});

describe("rendered samples", () => {
  it("equal the template's bytes: history + generation prompt, then the turn, its span ending with <|im_end|>", async () => {
    const rendered = (await fs.readFile(path.join(out, DATASET_FILES.rendered), "utf8")).trim().split("\n").map((l) => JSON.parse(l) as { task: string; message: number; text: string; assistant: [number, number] });
    expect(rendered.length).toBe(summary.samples);
    const byTask = new Map(lines.map((c) => [c.task, c]));
    for (const s of rendered) {
      const c = byTask.get(s.task)!;
      const history = c.messages.slice(0, s.message);
      const chars = [...s.text];
      const prompt = chars.slice(0, s.assistant[0]).join("");
      const span = chars.slice(s.assistant[0], s.assistant[1]).join("");
      expect(prompt).toBe(renderPrompt({ messages: history, tools: c.tools, thinking: false, addGenerationPrompt: true }));
      expect(span.endsWith("<|im_end|>")).toBe(true);
      expect(chars.slice(s.assistant[1]).join("")).toBe("\n");
      const target = c.messages[s.message]!;
      // The whole text is what the template renders for the history plus this turn, arguments in canonical spelling.
      const asObjects = target.role === "assistant" && target.tool_calls
        ? { ...target, tool_calls: target.tool_calls.map((t) => ({ ...t, function: { ...t.function, arguments: JSON.parse(t.function.arguments as string) as Record<string, unknown> } })) }
        : target;
      expect(s.text).toBe(renderPrompt({ messages: [...history, asObjects], tools: c.tools, thinking: false, addGenerationPrompt: false }));
      const r = parse(span.replace(/<\|im_end\|>$/, ""), { tools: c.tools, format: "hermes", thinking: "closed" });
      expect(r.errors).toEqual([]);
      expect(r.calls.length).toBe(target.role === "assistant" ? (target.tool_calls?.length ?? 0) : -1);
    }
  });

  it("pieces join to the text, and only the assistant span is marked for training", () => {
    for (const c of lines.slice(0, 3)) {
      for (const s of renderSamples(c)) {
        expect(s.pieces.map((p) => p.text).join("")).toBe(s.text);
        const trained = s.pieces.filter((p) => p.assistant).map((p) => p.text).join("");
        expect(trained).toBe([...s.text].slice(s.assistant[0], s.assistant[1]).join(""));
        expect(s.pieces.some((p) => p.assistant && p.special && p.text.includes("<|im_end|>"))).toBe(true);
      }
    }
  });
});
