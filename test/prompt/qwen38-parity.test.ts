// Renderer parity for the templates that read more variables: qtc's Qwen3.8 renderer against the pinned Qwen3.8
// template (templates/qwen3.8-27b.jinja) and its Qwen3.6 renderer against Qwen3.6's template, both run by
// @huggingface/jinja, over every shape × thinking × reasoning_effort × preserve_thinking × generation prompt.

import { readFileSync } from "node:fs";
import { Template } from "@huggingface/jinja";
import { describe, expect, it } from "vitest";
import { detectFormat, qwen36, qwen38, type ToolCallFormat } from "../../src/formats/index.js";
import { renderPrompt, type ChatMessage, type TemplateEffort } from "../../src/prompt/index.js";
import { SHAPES, THINKING, type Shape } from "./qwen35-shapes.js";

const QWEN38_TEMPLATE = readFileSync(new URL("../../templates/qwen3.8-27b.jinja", import.meta.url), "utf8");
const QWEN35_TEMPLATE = readFileSync(new URL("../../templates/qwen3.5-4b.jinja", import.meta.url), "utf8");
const QWEN36_TEMPLATE = QWEN35_TEMPLATE.replace(
  "{%- if loop.index0 > ns.last_query_index %}",
  "{%- if (preserve_thinking is defined and preserve_thinking is true) or (loop.index0 > ns.last_query_index) %}",
);

const user = (content: string): ChatMessage => ({ role: "user", content });
const tool = (content: string): ChatMessage => ({ role: "tool", content });
const call = (name: string, args: Record<string, unknown>) => ({ id: `call_${name}`, type: "function" as const, function: { name, arguments: args } });
const TOOLS = SHAPES.find((s) => s.tools)!.tools!;

/** Shapes only Qwen3.8's template renders as JSON: booleans and null in arguments (its `tojson`), and three tool results in a row. */
const QWEN38_SHAPES: readonly Shape[] = [
  {
    name: "booleans, null and numbers in arguments",
    tools: TOOLS,
    messages: [
      user("Write it"),
      { role: "assistant", content: "", reasoning_content: "write with flags", tool_calls: [call("write_file", { path: "a", force: true, dry: false, owner: null, mode: 420, ratio: 0.5 })] },
      tool("ok"),
    ],
  },
  {
    name: "three parallel calls, their results grouped, then an answer and a new question",
    tools: TOOLS,
    messages: [
      { role: "system", content: "Be exact." },
      user("Read a, b and c"),
      { role: "assistant", content: "Reading all three.", reasoning_content: "three files", tool_calls: [call("read_file", { path: "a" }), call("read_file", { path: "b" }), call("read_file", { path: "c" })] },
      tool("A"),
      tool("B"),
      tool("C"),
      { role: "assistant", content: "A, B, C.", reasoning_content: "all read" },
      user("And d?"),
    ],
  },
  { name: "system prompt only, no tools", messages: [{ role: "system", content: "\nYou answer in French.\n" }, user("Bonjour"), { role: "assistant", content: "Salut", reasoning_content: " greet " }, user("Ça va ?")] },
];

const ALL_SHAPES = [...SHAPES, ...QWEN38_SHAPES];
const EFFORTS: readonly (TemplateEffort | undefined)[] = [undefined, "xhigh", "medium", "low"];
const PRESERVE: readonly (boolean | undefined)[] = [undefined, true, false];

interface Case {
  shape: Shape;
  thinking: boolean | undefined;
  effort: TemplateEffort | undefined;
  preserve: boolean | undefined;
  addGenerationPrompt: boolean;
}

function casesFor(shapes: readonly Shape[], efforts: readonly (TemplateEffort | undefined)[]): Case[] {
  return shapes.flatMap((shape) =>
    THINKING.flatMap((thinking) =>
      efforts.flatMap((effort) => PRESERVE.flatMap((preserve) => [true, false].map((addGenerationPrompt) => ({ shape, thinking, effort, preserve, addGenerationPrompt })))),
    ),
  );
}
const CASES_38 = casesFor(ALL_SHAPES, EFFORTS);
// Qwen3.6's template prints booleans and null with Python's str(), which @huggingface/jinja refuses for null
// (test/prompt/python-json.test.ts checks qtc's spelling of those).
const SHAPES_36 = ALL_SHAPES.filter((s) => s !== QWEN38_SHAPES[0]);
const CASES_36 = casesFor(SHAPES_36, [undefined]);

function decodedArguments(messages: readonly unknown[]): unknown[] {
  return JSON.parse(JSON.stringify(messages), (key, value: unknown) => (key === "arguments" && typeof value === "string" ? JSON.parse(value) : value));
}

function jinja(template: string, c: Case): string {
  const vars: Record<string, unknown> = { messages: decodedArguments(c.shape.messages), tools: c.shape.tools ?? null, add_generation_prompt: c.addGenerationPrompt };
  if (c.thinking !== undefined) vars.enable_thinking = c.thinking;
  if (c.effort !== undefined) vars.reasoning_effort = c.effort;
  if (c.preserve !== undefined) vars.preserve_thinking = c.preserve;
  return new Template(template).render(vars);
}

function qtc(format: ToolCallFormat, c: Case): string {
  return renderPrompt({
    messages: c.shape.messages,
    tools: c.shape.tools as never,
    format,
    thinking: c.thinking ?? true,
    addGenerationPrompt: c.addGenerationPrompt,
    ...(c.effort !== undefined ? { reasoningEffort: c.effort } : {}),
    ...(c.preserve !== undefined ? { preserveThinking: c.preserve } : {}),
  });
}

const label = (c: Case) => `${c.shape.name} / thinking ${String(c.thinking)} / effort ${String(c.effort)} / preserve ${String(c.preserve)} / gen ${c.addGenerationPrompt}`;

function mismatches(template: string, format: ToolCallFormat, cases: readonly Case[], render: (c: Case) => string = (c) => qtc(format, c)): string[] {
  return cases.filter((c) => render(c) !== jinja(template, c)).map(label);
}

const TOTAL = CASES_38.length + CASES_36.length;

describe(`qwen38 and qwen36 renderers = the real templates: ${TOTAL} renderings`, () => {
  it(`Qwen3.8: ${ALL_SHAPES.length} shapes × ${THINKING.length} thinking × ${EFFORTS.length} reasoning_effort × ${PRESERVE.length} preserve_thinking × 2 generation prompt = ${CASES_38.length}, byte-identical`, () => {
    expect(CASES_38.length).toBe(ALL_SHAPES.length * 2 * 4 * 3 * 2);
    for (const c of CASES_38) expect(qtc(qwen38, c), label(c)).toBe(jinja(QWEN38_TEMPLATE, c));
  });

  it(`Qwen3.6: ${SHAPES_36.length} shapes × ${THINKING.length} thinking × ${PRESERVE.length} preserve_thinking × 2 generation prompt = ${CASES_36.length}, byte-identical`, () => {
    for (const c of CASES_36) expect(qtc(qwen36, c), label(c)).toBe(jinja(QWEN36_TEMPLATE, c));
  });

  it("each template is detected as its own format from its text (Qwen3.5's stays qwen35)", () => {
    expect(detectFormat(QWEN38_TEMPLATE)?.id).toBe("qwen38");
    expect(detectFormat(QWEN36_TEMPLATE)?.id).toBe("qwen36");
    expect(detectFormat(QWEN35_TEMPLATE)?.id).toBe("qwen35");
  });
});

describe("what the variables change, read from the rendered prompt", () => {
  const history = QWEN38_SHAPES[1]!;
  const render = (o: { effort?: TemplateEffort; preserve?: boolean; thinking?: boolean }) =>
    qtc(qwen38, { shape: history, thinking: o.thinking, effort: o.effort, preserve: o.preserve, addGenerationPrompt: true });

  it("each level writes the template's own line first in the system turn, before the tools; medium writes none", () => {
    expect(render({}).startsWith("<|im_start|>system\nReasoning effort is set to xhigh.")).toBe(true);
    expect(render({ effort: "xhigh" })).toBe(render({}));
    expect(render({ effort: "low" }).startsWith("<|im_start|>system\nReasoning effort is set to low. Keep your thinking brief")).toBe(true);
    expect(render({ effort: "medium" }).startsWith("<|im_start|>system\n# Tools")).toBe(true);
    expect(render({ effort: "low", thinking: false })).toBe(render({ effort: "xhigh", thinking: false }));
    expect(render({ thinking: false }).includes("Reasoning effort")).toBe(false);
  });

  it("preserve_thinking false drops the reasoning before the last query; true (the default) keeps it", () => {
    expect(render({}).includes("<think>\nthree files\n</think>")).toBe(true);
    expect(render({ preserve: true })).toBe(render({}));
    expect(render({ preserve: false }).includes("three files")).toBe(false);
    expect(render({ preserve: false }).includes("all read")).toBe(false);
  });

  it("Qwen3.6 keeps earlier reasoning only when preserve_thinking is true", () => {
    const c = { shape: history, thinking: undefined, effort: undefined, addGenerationPrompt: true };
    expect(qtc(qwen36, { ...c, preserve: true }).includes("three files")).toBe(true);
    expect(qtc(qwen36, { ...c, preserve: undefined }).includes("three files")).toBe(false);
  });

  it("a system message after the first, which the template refuses, is rendered in place as a system turn (Claude Code sends them)", () => {
    const shape: Shape = { name: "late system", messages: [user("Q1"), { role: "assistant", content: "A1" }, { role: "system", content: " Be brief now. " }, user("Q2")] };
    const c = { shape, thinking: undefined, effort: undefined, preserve: undefined, addGenerationPrompt: true };
    expect(() => jinja(QWEN38_TEMPLATE, c)).toThrow(/System message must be at the beginning/);
    const withoutIt = jinja(QWEN38_TEMPLATE, { ...c, shape: { ...shape, messages: shape.messages.filter((m, i) => i !== 2) } });
    const marker = "<|im_start|>user\nQ2";
    expect(qtc(qwen38, c)).toBe(withoutIt.replace(marker, `<|im_start|>system\nBe brief now.<|im_end|>\n${marker}`));
  });

  it("an effort the template does not have is refused", () => {
    expect(() => renderPrompt({ messages: [user("x")], format: qwen38, reasoningEffort: "high" as never })).toThrow(/reasoningEffort must be one of xhigh, medium, low/);
  });
});

describe("parity controls", () => {
  it("a template with one byte changed in the low line fails on exactly the thinking-on renderings at low", () => {
    const changed = QWEN38_TEMPLATE.replace("Keep your thinking brief", "Keep your thinking brieF");
    expect(changed).not.toBe(QWEN38_TEMPLATE);
    const expected = CASES_38.filter((c) => c.effort === "low" && c.thinking !== false).length;
    expect(mismatches(changed, qwen38, CASES_38)).toHaveLength(expected);
  });

  it("Qwen3.5's renderer fails against Qwen3.8's template wherever the reasoning line is written", () => {
    const bad = mismatches(QWEN38_TEMPLATE, qwen38, CASES_38, (c) => renderPrompt({ messages: c.shape.messages, tools: c.shape.tools as never, format: "qwen35", thinking: c.thinking ?? true, addGenerationPrompt: c.addGenerationPrompt }));
    expect(bad.length).toBeGreaterThanOrEqual(CASES_38.filter((c) => c.thinking !== false && c.effort !== "medium").length);
  });
});
