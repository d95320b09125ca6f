// Owns: tests that a format which is no built-in one (test-format.ts: hermes JSON in <tool_response> tags) runs
// through the prompt renderer, the grammar compiler and the parser with no change outside src/formats.

import { describe, expect, it } from "vitest";
import { FORMAT_IDS, getFormat, hermes, QWEN3_TOKENS } from "../../src/formats/index.js";
import { compileToolGrammar } from "../../src/grammar/index.js";
import { GrammarChecker } from "../../src/model/grammar-checker.js";
import { createParser, parse } from "../../src/parse/index.js";
import { renderPrompt, renderToolCall } from "../../src/prompt/index.js";
import type { ToolDefinition } from "../../src/tools/types.js";
import { tinyModel } from "../grammar/helpers.js";
import { responseTagsFormat as format } from "./test-format.js";

const TOOLS: ToolDefinition[] = [
  {
    name: "read_file",
    description: "Read a file",
    parameters: { type: "object", properties: { path: { type: "string", maxLength: 40 }, lines: { type: "integer", minimum: 1, maximum: 500 } }, required: ["path"] },
  },
];
const CALL = { name: "read_file", arguments: { path: "src/a.ts", lines: 20 } };
const RENDERED = '<tool_response>\n{"name": "read_file", "arguments": {"path": "src/a.ts", "lines": 20}}\n</tool_response>';

describe("a third format built from src/formats exports", () => {
  it("is not registered: ids and lookup stay the built-in ones", () => {
    expect(FORMAT_IDS).not.toContain(format.id);
    expect(() => getFormat(format.id)).toThrow(/hermes, qwen3coder/);
  });

  it("renders a past call in its own tags, and its tools section names them", () => {
    expect(renderToolCall(CALL, format)).toBe(RENDERED);
    const prompt = renderPrompt({
      format,
      tools: TOOLS,
      messages: [
        { role: "user", content: "show me a.ts" },
        { role: "assistant", content: "", tool_calls: [{ function: CALL }] },
      ],
    });
    expect(prompt).toContain(`${RENDERED}<|im_end|>`);
    expect(prompt).toContain('within <tool_response></tool_response> XML tags:\n<tool_response>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_response>');
    expect(prompt).not.toContain(hermes.open.text);
  });

  it("compiles a grammar that forces its tags and accepts the rendered call, not a hermes one", async () => {
    const compiled = compileToolGrammar(TOOLS, { format, toolChoice: "required", maxTokens: 256 });
    if (!compiled.ok) throw new Error(compiled.error.message);
    expect(compiled.value.triggerToken).toBe(QWEN3_TOKENS.toolResponseOpen.token);
    expect(compiled.value.gbnf).toContain(`<[${QWEN3_TOKENS.toolResponseOpen.token}]>`);
    expect(compiled.value.gbnf).toContain(`<[${QWEN3_TOKENS.toolResponseClose.token}]>`);
    expect(compiled.value.gbnf).not.toContain(`<[${QWEN3_TOKENS.toolCallOpen.token}]>`);
    const { model } = await tinyModel();
    const checker = await GrammarChecker.create(model, compiled.value);
    expect(checker.checkText(RENDERED).accepted).toBe(true);
    expect(checker.checkText(renderToolCall(CALL, hermes)).accepted).toBe(false);
  });

  it("keeps its tags out of free text under tool choice auto", async () => {
    const compiled = compileToolGrammar(TOOLS, { format, toolChoice: "auto", maxTokens: 256 });
    if (!compiled.ok) throw new Error(compiled.error.message);
    const { model } = await tinyModel();
    const checker = await GrammarChecker.create(model, compiled.value);
    expect(checker.checkText(`Let me look.\n${RENDERED}`).accepted).toBe(true);
    // Spelled from plain characters, the open tag is not the call's token: free text may not hold it.
    const spelled = model.tokenize("x <tool_response>", false);
    expect(checker.checkTokens(spelled).accepted).toBe(false);
  });

  it("parses the rendered call back to the same call, batch and streamed", () => {
    const text = `I will read it.\n${RENDERED}`;
    const result = parse(text, { tools: TOOLS, format });
    expect(result.errors).toEqual([]);
    expect(result.calls).toHaveLength(1);
    expect(result.calls[0]).toMatchObject({ name: CALL.name, parsedArguments: CALL.arguments, format: format.id, raw: RENDERED });
    expect(result.content).toBe("I will read it.");
    const parser = createParser({ tools: TOOLS, format, newId: () => "x" });
    const events = [...text].flatMap((ch) => parser.feed(ch));
    events.push(...parser.end());
    const calls = events.flatMap((e) => (e.type === "call" ? [e.call] : []));
    expect(calls.map((c) => [c.name, c.parsedArguments])).toEqual([[CALL.name, CALL.arguments]]);
  });

  it("does not read a call in the default hermes tags as a call", () => {
    const hermesCall = renderToolCall(CALL, hermes);
    const result = parse(hermesCall, { tools: TOOLS, format });
    expect(result.calls).toEqual([]);
    expect(result.diagnostics.detected).toBe(0);
    // Nor does the default parser read this format's block.
    expect(parse(RENDERED, { tools: TOOLS }).calls).toEqual([]);
  });

  it("rejects another format's body inside its tags with the usual code", () => {
    const xml = "<tool_response>\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_response>";
    const result = parse(xml, { tools: TOOLS, format });
    expect(result.calls).toEqual([]);
    expect(result.errors.map((e) => [e.reason, e.name])).toEqual([["bad_shape", "read_file"]]);
  });
});
