// Renderer parity: qtc's Qwen3.5 renderer against the real chat templates run by a Jinja implementation from
// npm (@huggingface/jinja, the one transformers.js renders chat templates with), over every template × message
// shape × thinking setting × generation prompt; plus control cases a broken comparison or renderer would pass.

import { readFileSync } from "node:fs";
import { Template } from "@huggingface/jinja";
import { describe, expect, it } from "vitest";
import { detectFormat, qwen35 } from "../../src/formats/index.js";
import { renderPrompt } from "../../src/prompt/index.js";
import { SHAPES, THINKING, type Shape } from "./qwen35-shapes.js";

const QWEN35_TEMPLATE = readFileSync(new URL("../../templates/qwen3.5-4b.jinja", import.meta.url), "utf8");
const GUARD_35 = "{%- if loop.index0 > ns.last_query_index %}";
const GUARD_36 = "{%- if (preserve_thinking is defined and preserve_thinking is true) or (loop.index0 > ns.last_query_index) %}";

/** Qwen3.6's template: Qwen3.5's with its one changed line (see templates/README.md). */
function qwen36Template(): string {
  expect(QWEN35_TEMPLATE.split(GUARD_35).length).toBe(2);
  return QWEN35_TEMPLATE.replace(GUARD_35, GUARD_36);
}

// Qwen3.6's template reads preserve_thinking, so it is detected as qwen36: qwen35's calls, its own renderer.
const TEMPLATES: ReadonlyArray<{ name: string; text: string; format: string }> = [
  { name: "Qwen3.5-4B", text: QWEN35_TEMPLATE, format: "qwen35" },
  { name: "Qwen3.6", text: qwen36Template(), format: "qwen36" },
];

interface Case {
  shape: Shape;
  thinking: boolean | undefined;
  addGenerationPrompt: boolean;
}
const CASES: Case[] = SHAPES.flatMap((shape) =>
  THINKING.flatMap((thinking) => [true, false].map((addGenerationPrompt) => ({ shape, thinking, addGenerationPrompt }))),
);

/**
 * The template iterates a call's arguments, so arguments given as JSON text (as OpenAI sends them) make it fail;
 * qtc decodes them once (renderPrompt's documented departure). The template gets them decoded.
 */
function decodedArguments(messages: readonly unknown[]): unknown[] {
  return JSON.parse(JSON.stringify(messages), (key, value: unknown) => (key === "arguments" && typeof value === "string" ? JSON.parse(value) : value));
}

function jinja(template: string, c: Case): string {
  const vars: Record<string, unknown> = { messages: decodedArguments(c.shape.messages), tools: c.shape.tools ?? null, add_generation_prompt: c.addGenerationPrompt };
  if (c.thinking !== undefined) vars.enable_thinking = c.thinking;
  return new Template(template).render(vars);
}

function qtc(c: Case): string {
  return renderPrompt({
    messages: c.shape.messages,
    tools: c.shape.tools as never,
    format: qwen35,
    thinking: c.thinking ?? true,
    addGenerationPrompt: c.addGenerationPrompt,
  });
}

/** Where two renderings first differ, or -1 when they are the same bytes. */
function firstDifference(a: string, b: string): number {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return i;
  return x.length === y.length ? -1 : n;
}

function mismatches(template: string, render: (c: Case) => string = qtc): string[] {
  return CASES.filter((c) => firstDifference(render(c), jinja(template, c)) >= 0).map(
    (c) => `${c.shape.name} (thinking ${String(c.thinking)}, generation prompt ${c.addGenerationPrompt})`,
  );
}

describe(`qwen35 renderer = the real templates: ${TEMPLATES.length} templates × ${SHAPES.length} shapes × ${THINKING.length} thinking × 2 generation prompt = ${TEMPLATES.length * CASES.length} renderings`, () => {
  for (const t of TEMPLATES) {
    it(`${t.name}: every shape byte-identical`, () => {
      for (const c of CASES) {
        const expected = jinja(t.text, c);
        const actual = qtc(c);
        expect(firstDifference(actual, expected), `${c.shape.name} / thinking ${String(c.thinking)} / gen ${c.addGenerationPrompt}`).toBe(-1);
      }
    });

    it(`${t.name}: detected as the ${t.format} format from the template text`, () => {
      expect(detectFormat(t.text)?.id).toBe(t.format);
    });
  }
});

describe("parity controls", () => {
  it("a template with one byte changed fails on exactly the shapes that render that text", () => {
    const changed = QWEN35_TEMPLATE.replace("ONLY reply in the following format", "ONLX reply in the following format");
    expect(changed.length).toBe(QWEN35_TEMPLATE.length);
    const withTools = CASES.filter((c) => c.shape.tools !== undefined).length;
    expect(withTools).toBeGreaterThan(0);
    expect(mismatches(changed)).toHaveLength(withTools);
  });

  it("a renderer with one byte changed (a newline made a space) fails on every rendering", () => {
    const broken = (c: Case) => {
      const text = qtc(c);
      const at = text.lastIndexOf("\n");
      return text.slice(0, at) + " " + text.slice(at + 1);
    };
    expect(mismatches(QWEN35_TEMPLATE, broken)).toHaveLength(CASES.length);
  });

  it("the thinking switch is one of the compared inputs: Qwen3.5 opens the think block unless it is off", () => {
    const c = CASES[0]!;
    expect(jinja(QWEN35_TEMPLATE, { ...c, thinking: undefined, addGenerationPrompt: true }).endsWith("<|im_start|>assistant\n<think>\n")).toBe(true);
    expect(qtc({ ...c, thinking: false, addGenerationPrompt: true }).endsWith("<think>\n\n</think>\n\n")).toBe(true);
  });
});
