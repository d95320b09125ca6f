import { describe, expect, it } from "vitest";
import { createParser, parse } from "../../src/parse/index.js";
import { QtcException } from "../../src/errors.js";
import { counterIds, feedAll, jsonCall, normalizeEvents, resultOf, TOOLS, xmlCall } from "./helpers.js";

const FENCE = "```";

describe("the issue's cases", () => {
  it("reads a standard <parameter=path> call", () => {
    const text = "<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/index.ts\n</parameter>\n</function>\n</tool_call>";
    const r = parse(text, { tools: TOOLS, newId: counterIds() });
    expect(r.calls).toEqual([
      { id: "id1", name: "read_file", arguments: '{"path":"src/index.ts"}', parsedArguments: { path: "src/index.ts" }, format: "qwen3coder", raw: text, start: 0, end: text.length },
    ]);
    expect(r.errors).toEqual([]);
    expect(r.content).toBe("");
    expect(r.diagnostics).toEqual({ detected: 1, accepted: 1, rejected: {}, emitted: 1, notes: [] });
  });

  it("reads a JSON body inside <function=search>", () => {
    const text = '<tool_call>\n<function=search>\n{"query": "parser", "limit": 5}\n</function>\n</tool_call>';
    const r = parse(text, { tools: TOOLS });
    expect(r.calls.map((c) => [c.name, c.parsedArguments, c.format])).toEqual([["search", { query: "parser", limit: 5 }, "qwen3coder"]]);
    expect(r.calls[0]!.arguments).toBe('{"query":"parser","limit":5}');
  });

  it("keeps two calls in order with different ids", () => {
    const text = `${xmlCall("read_file", { path: "a.ts" })}\n${jsonCall("list_files", { path: "src" })}`;
    const r = parse(text, { tools: TOOLS });
    expect(r.calls.map((c) => [c.name, c.parsedArguments])).toEqual([["read_file", { path: "a.ts" }], ["list_files", { path: "src" }]]);
    expect(r.calls[0]!.id).toMatch(/^[0-9a-f]{32}$/);
    expect(r.calls[1]!.id).toMatch(/^[0-9a-f]{32}$/);
    expect(r.calls[0]!.id).not.toBe(r.calls[1]!.id);
    expect(r.calls[0]!.end).toBeLessThan(r.calls[1]!.start);
  });

  it("emits a call split into four chunks only after the last chunk", () => {
    const chunks = ["<tool_", "call>\n<function=read_file>\n<pa", "th>src/index.ts</path>\n</function>", "\n</tool_call>"];
    const parser = createParser({ tools: TOOLS, thinking: "closed", newId: counterIds() });
    expect(parser.feed(chunks[0]!)).toEqual([]);
    expect(parser.feed(chunks[1]!)).toEqual([]);
    expect(parser.feed(chunks[2]!)).toEqual([]);
    const last = parser.feed(chunks[3]!);
    expect(last.map((e) => e.type)).toEqual(["call"]);
    expect(last[0]).toMatchObject({ call: { id: "id1", name: "read_file", parsedArguments: { path: "src/index.ts" }, start: 0, end: chunks.join("").length } });
    const end = parser.end();
    expect(end.map((e) => e.type)).toEqual(["finish"]);
    expect(resultOf(end).calls).toHaveLength(1);
  });

  it("with thinking 'auto' (the default) holds an undecided start back until end()", () => {
    const chunks = ["<tool_", "call>\n<function=read_file>\n<pa", "th>src/index.ts</path>\n</function>", "\n</tool_call>"];
    const parser = createParser({ tools: TOOLS });
    for (const c of chunks) expect(parser.feed(c)).toEqual([]);
    const end = parser.end();
    expect(end.map((e) => e.type)).toEqual(["call", "finish"]);
  });

  it("does not read the same call inside a ```xml fence", () => {
    const call = "<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/index.ts\n</parameter>\n</function>\n</tool_call>";
    const text = `Like this:\n${FENCE}xml\n${call}\n${FENCE}\nDone.`;
    const r = parse(text, { tools: TOOLS });
    expect(r.calls).toEqual([]);
    expect(r.errors).toEqual([]);
    expect(r.content).toBe(text);
    expect(r.diagnostics.detected).toBe(0);
  });

  it("rejects delete_everything, which is not declared", () => {
    const r = parse(jsonCall("delete_everything", { path: "/" }), { tools: TOOLS });
    expect(r.calls).toEqual([]);
    expect(r.errors.map((e) => [e.reason, e.name])).toEqual([["unknown_tool", "delete_everything"]]);
    expect(r.errors[0]!.message).toContain("read_file, list_files, grep, write_file, run_tests, search, note");
    expect(r.diagnostics.rejected).toEqual({ unknown_tool: 1 });
  });

  it("rejects a repeated <path> parameter", () => {
    const child = "<tool_call>\n<function=read_file>\n<path>a.ts</path>\n<path>b.ts</path>\n</function>\n</tool_call>";
    const param = "<tool_call>\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n<parameter=path>\nb.ts\n</parameter>\n</function>\n</tool_call>";
    for (const text of [child, param]) {
      const r = parse(text, { tools: TOOLS });
      expect(r.calls).toEqual([]);
      expect(r.errors.map((e) => [e.reason, e.name])).toEqual([["duplicate_parameter", "read_file"]]);
    }
  });

  it("rejects a hermes write_file whose content holds a raw newline, saying to write \\n", () => {
    const text = '<tool_call>\n{"name": "write_file", "arguments": {"path": "a.txt", "content": "line one\nline two"}}\n</tool_call>';
    const r = parse(text, { tools: TOOLS });
    expect(r.calls).toEqual([]);
    expect(r.errors.map((e) => [e.reason, e.name])).toEqual([["invalid_json", "write_file"]]);
    expect(r.errors[0]!.message).toContain("\\n");
  });

  it("reports a block cut off at the token limit as truncated", () => {
    const text = 'Reading it.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "src/ind';
    const r = parse(text, { tools: TOOLS, truncated: true });
    expect(r.calls).toEqual([]);
    expect(r.errors.map((e) => [e.reason, e.name, e.start, e.end])).toEqual([["truncated", "read_file", 12, text.length]]);
    expect(r.content).toBe("Reading it.");
  });

  it("keeps a good block beside a bad one", () => {
    const bad = '<tool_call>\n{"name": "read_file", "arguments": {"path": 42}}\n</tool_call>';
    const good = xmlCall("read_file", { path: "ok.ts" });
    const r = parse(`${bad}\n${good}`, { tools: TOOLS });
    expect(r.calls.map((c) => c.parsedArguments)).toEqual([{ path: "ok.ts" }]);
    expect(r.errors.map((e) => e.reason)).toEqual(["schema"]);
    expect(r.diagnostics).toMatchObject({ detected: 2, accepted: 1, emitted: 1, rejected: { schema: 1 } });
  });
});

describe("scanning", () => {
  it("splits reasoning from <think>…</think> and trims the answer text", () => {
    const r = parse("<think>\nI should read it.\n</think>\n\nSure.\n" + jsonCall("read_file", { path: "a" }) + "\n", { tools: TOOLS });
    expect(r.reasoning).toBe("I should read it.");
    expect(r.content).toBe("Sure.");
    expect(r.calls).toHaveLength(1);
  });

  it("treats text before a lone </think> as reasoning, calls inside it included", () => {
    const r = parse(`plan: ${jsonCall("read_file", { path: "x" })}\n</think>\n\nanswer`, { tools: TOOLS });
    expect(r.reasoning).toBe(`plan: ${jsonCall("read_file", { path: "x" })}`);
    expect(r.content).toBe("answer");
    expect(r.calls).toEqual([]);
    expect(r.diagnostics.detected).toBe(0);
  });

  it("joins several think sections with a blank line", () => {
    const r = parse("<think>one</think>mid<think>\n</think><think>two\n</think>end");
    expect(r).toMatchObject({ reasoning: "one\n\ntwo", content: "midend" });
    expect(parse("<think>\n\n</think>\n\nhi")).toMatchObject({ reasoning: "", content: "hi" });
  });

  it("never reads calls inside <think>", () => {
    const r = parse(`<think>${jsonCall("read_file", { path: "x" })}</think>done`, { tools: TOOLS });
    expect(r.calls).toEqual([]);
    expect(r.content).toBe("done");
  });

  it("reads reasoning at once with thinking 'open' and keeps an unclosed think as reasoning", () => {
    const parser = createParser({ thinking: "open" });
    expect(parser.feed("step one")).toEqual([{ type: "reasoning-delta", text: "step one" }]);
    const r = resultOf(parser.end());
    expect(r.reasoning).toBe("step one");
    expect(r.content).toBe("");
    expect(r.diagnostics.notes).toEqual(["reasoning was not closed with </think>"]);
  });

  it("with thinking 'closed' drops a stray </think> and keeps the text before it as answer", () => {
    const r = parse("hello</think> world", { thinking: "closed" });
    expect(r).toMatchObject({ content: "hello world", reasoning: null });
    expect(r.diagnostics.notes).toEqual(["stray </think> without <think> dropped"]);
  });

  it("excludes ~~~ fences and longer ``` fences, and reads calls after the fence closes", () => {
    const call = jsonCall("read_file", { path: "x" });
    const text = `~~~\n${call}\n~~~\n${FENCE}${FENCE[0]}\n${FENCE}\n${call}\n${FENCE}${FENCE[0]}\n${call}`;
    const r = parse(text, { tools: TOOLS });
    expect(r.calls).toHaveLength(1);
    expect(r.calls[0]!.start).toBe(text.length - call.length);
  });

  it("does not treat a mid-line ``` as a fence or a fence line with an info string as its close", () => {
    const call = jsonCall("read_file", { path: "x" });
    expect(parse(`use ${FENCE}x${FENCE} then\n${call}`, { tools: TOOLS }).calls).toHaveLength(1);
    expect(parse(`${FENCE}\n${FENCE}js\n${call}\n${FENCE}`, { tools: TOOLS }).calls).toHaveLength(0);
  });

  it("treats an unclosed fence as running to the end", () => {
    const r = parse(`${FENCE}\n${jsonCall("read_file", { path: "x" })}`, { tools: TOOLS });
    expect(r.calls).toEqual([]);
    expect(r.diagnostics.detected).toBe(0);
  });

  it("accepts a bare <function=…> block at a line start for qwen3coder, with a note", () => {
    const text = "Reading.\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\nDone.";
    const r = parse(text, { tools: TOOLS });
    expect(r.calls.map((c) => [c.name, c.parsedArguments, c.raw])).toEqual([
      ["read_file", { path: "a.ts" }, "<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>"],
    ]);
    expect(r.content).toBe("Reading.\n\nDone.");
    expect(r.diagnostics.notes).toEqual(["bare <function=…> block without the <tool_call> wrapper"]);
    // at the very start of the output too, however it is chunked
    const atStart = "  <function=read_file>\n<path>b.ts</path>\n</function>";
    expect(parse(atStart, { tools: TOOLS }).calls.map((c) => c.parsedArguments)).toEqual([{ path: "b.ts" }]);
    expect(normalizeEvents(feedAll([..."  <func"], { tools: TOOLS }))).toEqual(normalizeEvents(feedAll(["  <func"], { tools: TOOLS })));
    expect(resultOf(feedAll([..."  <func"], { tools: TOOLS })).content).toBe("<func");
    expect(resultOf(feedAll([" ", " <f", "unction=read_file>\n<path>b.ts</path>\n</function>"], { tools: TOOLS })).calls).toHaveLength(1);
    // mid-line, or with the hermes format forced, it is text
    expect(parse("see <function=read_file><path>a</path></function>", { tools: TOOLS }).calls).toEqual([]);
    expect(parse("<function=read_file>\n<path>a</path>\n</function>", { tools: TOOLS, format: "hermes" }).calls).toEqual([]);
  });

  it("treats untagged JSON, ```json fences and invented wrappers as text", () => {
    for (const text of [
      '{"name": "read_file", "arguments": {"path": "a"}}',
      `${FENCE}json\n{"name": "read_file", "arguments": {"path": "a"}}\n${FENCE}`,
      '<tools>{"name": "read_file", "arguments": {"path": "a"}}</tools>',
      '<function_call>{"name": "read_file", "arguments": {"path": "a"}}</function_call>',
    ]) {
      const r = parse(text, { tools: TOOLS });
      expect(r.calls).toEqual([]);
      expect(r.errors).toEqual([]);
      expect(r.content).toBe(text);
    }
  });

  it("drops a stray close tag with a note", () => {
    const r = parse("done</tool_call>", { tools: TOOLS });
    expect(r.content).toBe("done");
    expect(r.diagnostics.notes).toEqual(["stray </tool_call> without an open tag dropped"]);
  });

  it("detects the format per block in auto mode and honours a forced format", () => {
    const text = `${jsonCall("read_file", { path: "a" })}\n${xmlCall("read_file", { path: "b" })}`;
    expect(parse(text, { tools: TOOLS }).calls.map((c) => c.format)).toEqual(["hermes", "qwen3coder"]);
    const hermesOnly = parse(text, { tools: TOOLS, format: "hermes" });
    expect(hermesOnly.calls.map((c) => c.format)).toEqual(["hermes"]);
    expect(hermesOnly.errors.map((e) => e.reason)).toEqual(["bad_shape"]);
    const xmlOnly = parse(text, { tools: TOOLS, format: "qwen3coder" });
    expect(xmlOnly.calls.map((c) => c.format)).toEqual(["qwen3coder"]);
    expect(xmlOnly.errors.map((e) => e.reason)).toEqual(["bad_shape"]);
  });

  it("accepts an unclosed final block whose body is complete, with a note", () => {
    const text = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n';
    const r = parse(text, { tools: TOOLS, truncated: true });
    expect(r.calls.map((c) => [c.parsedArguments, c.end])).toEqual([[{ path: "a" }, text.length]]);
    expect(r.diagnostics.notes).toEqual(["read_file block was not closed; accepted because its body was complete"]);
    const xml = parse("<tool_call>\n<function=read_file>\n<parameter=path>\na", { tools: TOOLS, truncated: true });
    expect(xml.errors.map((e) => e.reason)).toEqual(["truncated"]);
  });

  it("rejects an empty block and a block of neither format", () => {
    expect(parse("<tool_call>\n\n</tool_call>").errors.map((e) => e.reason)).toEqual(["empty_block"]);
    expect(parse("<tool_call>read_file(path='a')</tool_call>").errors.map((e) => e.reason)).toEqual(["bad_shape"]);
    expect(parse("<tool_call>").errors.map((e) => e.reason)).toEqual(["truncated"]);
  });

  it("rejects a block with U+FFFD as invalid_utf8", () => {
    const r = parse(jsonCall("write_file", { path: "a", content: "bad \uFFFD byte" }), { tools: TOOLS });
    expect(r.errors.map((e) => e.reason)).toEqual(["invalid_utf8"]);
  });

  it("rejects a block over maxBlockBytes as too_large, keeping only a preview", () => {
    const text = jsonCall("write_file", { path: "a", content: "é".repeat(600) });
    const r = parse(text, { tools: TOOLS, limits: { maxBlockBytes: 1000 } });
    expect(r.errors.map((e) => [e.reason, e.end])).toEqual([["too_large", text.length]]);
    const huge = jsonCall("write_file", { path: "a", content: "x".repeat(5000) });
    const h = parse(huge, { tools: TOOLS, limits: { maxBlockBytes: 1000 } });
    expect(h.errors.map((e) => [e.reason, e.raw.length, e.end])).toEqual([["too_large", 11 + 256, huge.length]]);
  });

  it("gives offsets in UTF-16 units of the whole output", () => {
    const prefix = "héllo 😀 ";
    const call = jsonCall("read_file", { path: "a" });
    const r = parse(prefix + call + " after", { tools: TOOLS, thinking: "closed" });
    expect(r.calls[0]!.start).toBe(prefix.length);
    expect((prefix + call).slice(r.calls[0]!.start, r.calls[0]!.end)).toBe(call);
    expect(r.content).toBe("héllo 😀  after");
  });

  it("streams text deltas without the call spans and ends with finish", () => {
    const events = feedAll(["Let me ", "look.\n<tool", "_call>\n", '{"name": "read_file", "arguments": {"path": "a"}}', "\n</tool_call>\nThanks"], { tools: TOOLS, thinking: "closed", newId: counterIds() });
    expect(normalizeEvents(events).map((e) => e.type)).toEqual(["text-delta", "call", "text-delta", "finish"]);
    const text = events.filter((e) => e.type === "text-delta").map((e) => (e as { text: string }).text).join("");
    expect(text).toBe("Let me look.\n\nThanks");
    expect(resultOf(events).content).toBe(text);
  });

  it("without tools checks no names and keeps XML values as strings", () => {
    const r = parse("<tool_call>\n<function=anything>\n<parameter=n>\n42\n</parameter>\n</function>\n</tool_call>");
    expect(r.calls.map((c) => [c.name, c.parsedArguments])).toEqual([["anything", { n: "42" }]]);
  });

  it("refuses bad options and misuse with QtcException", () => {
    expect(() => createParser({ format: "mistral" as never })).toThrow(QtcException);
    expect(() => createParser({ tools: [{ name: "bad name!" }] })).toThrow(QtcException);
    expect(() => createParser({ limits: { maxDepth: 0 } })).toThrow(QtcException);
    const p = createParser();
    p.end();
    expect(() => p.feed("x")).toThrow(QtcException);
    expect(() => p.end()).toThrow(QtcException);
  });
});

describe("streamed deltas", () => {
  it("never end between the halves of a surrogate pair", () => {
    const text = "a😀b😀";
    for (const thinking of ["closed", "open"] as const) {
      const events = feedAll([..."a😀b😀"].flatMap((c) => (c.length === 2 ? [c[0]!, c[1]!] : [c])), { thinking });
      const deltas = events.filter((e) => e.type === "text-delta" || e.type === "reasoning-delta").map((e) => (e as { text: string }).text);
      expect(deltas.join("")).toBe(text);
      for (const d of deltas) expect(d).not.toMatch(/[\uD800-\uDBFF]$/);
    }
  });
});
