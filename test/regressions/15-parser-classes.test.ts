// Issue 15: the eight classes of outputs the parser got wrong against peers' suites and real Qwen3 outputs.
// Each policy (docs/parser.md, "Conformance") is checked in both formats where it applies, on the whole text,
// on every split into two chunks and one character at a time: streaming must still equal batch.
import { describe, expect, it } from "vitest";
import { parse, type ParseResult } from "../../src/parse/index.js";
import type { ParserOptions } from "../../src/parse/options.js";
import { emptyFuzzReport, runCase } from "../../bench/lib/parse-fuzz.js";
import { compileValidators } from "../../src/tools/validators.js";
import { feedAll, jsonCall, resultOf, TOOLS as TOOL_LIST, xmlCall } from "../parse/helpers.js";

// Compiled once: every split below builds a parser.
const TOOLS = compileValidators(TOOL_LIST);

const summary = (r: ParseResult) => ({
  calls: r.calls.map((c) => [c.name, c.parsedArguments]),
  errors: r.errors.map((e) => e.reason),
  content: r.content,
  reasoning: r.reasoning,
});

/** The batch result, after checking every 2-chunk split and 1-character chunks give the same. */
function parseEverySplit(text: string, options: ParserOptions = {}) {
  const batch = summary(parse(text, options));
  for (let i = 1; i < text.length; i++) {
    expect(summary(resultOf(feedAll([text.slice(0, i), text.slice(i)], options))), `split at ${i}`).toEqual(batch);
  }
  expect(summary(resultOf(feedAll([...text], options))), "one character at a time").toEqual(batch);
  return batch;
}

const withTools = (format: "hermes" | "qwen3coder"): ParserOptions => ({ tools: TOOLS, format, thinking: "closed" });

describe("issue 15, class 1: literal tags inside qwen3coder string values stay in the value", () => {
  it("keeps a nested tool-call block, a close followed by an earlier parameter, and lone close tags", () => {
    for (const content of [
      xmlCall("read_file", { path: "a.txt" }),
      "Use </parameter>\n<parameter=path>\nx\nhere",
      "End with </function> then </tool_call>.",
      "<function=grep>\n<parameter=pattern>\nx\n</parameter>\n</function>",
    ]) {
      const r = parseEverySplit(xmlCall("write_file", { path: "f.txt", content }), withTools("qwen3coder"));
      expect(r.calls).toEqual([["write_file", { path: "f.txt", content }]]);
      expect(r.errors).toEqual([]);
    }
  });

  it("still closes a value at a real close, and still reports a repeated parameter", () => {
    const real = "<tool_call>\n<function=write_file>\n<parameter=content>\nhi\n</parameter>\n<parameter=path>\na\n</parameter>\n</function>\n</tool_call>";
    expect(parseEverySplit(real, withTools("qwen3coder")).calls).toEqual([["write_file", { content: "hi", path: "a" }]]);
    const twice = "<tool_call>\n<function=read_file>\n<parameter=path>\na\n</parameter>\n<parameter=path>\nb\n</parameter>\n</function>\n</tool_call>";
    expect(parseEverySplit(twice, withTools("qwen3coder")).errors).toEqual(["duplicate_parameter"]);
  });

  it("falls back to the first close when no later close ends the block", () => {
    const text = "<tool_call>\n<function=write_file>\n<parameter=content>\nx </tool_call>\nAnd then I stopped.";
    const r = parseEverySplit(text, withTools("qwen3coder"));
    expect(r.calls).toEqual([]);
    expect(r.errors).toHaveLength(1);
    expect(r.content).toBe("And then I stopped.");
  });
});

describe("issue 15, class 2: a close tag inside a hermes JSON string is a string", () => {
  it("reads the string, and a second call after it", () => {
    const text = `${jsonCall("write_file", { path: "d.md", content: "a </tool_call> b <tool_call> c" })}\n${jsonCall("read_file", { path: "d.md" })}`;
    const r = parseEverySplit(text, withTools("hermes"));
    expect(r.calls).toEqual([["write_file", { path: "d.md", content: "a </tool_call> b <tool_call> c" }], ["read_file", { path: "d.md" }]]);
  });

  it("ends the block at the first close when the string breaks at a newline (never swallows the next call)", () => {
    const text = `<tool_call>\n{"name": "read_file", "arguments": {"path": "a</tool_call>\noops\n${jsonCall("read_file", { path: "b" })}`;
    const r = parseEverySplit(text, withTools("hermes"));
    expect(r.calls).toEqual([["read_file", { path: "b" }]]);
    expect(r.errors).toEqual(["invalid_json"]);
  });
});

describe("issue 15: the work a block full of tags causes is bounded", () => {
  it("judges at most 32 tags in one block, then a close ends it at its first quoted close", () => {
    const content = Array.from({ length: 40 }, (_, i) => `part ${i} </tool_call>`).join(" ");
    const r = parseEverySplit(`${jsonCall("write_file", { path: "a", content })}\n${jsonCall("read_file", { path: "b" })}`, withTools("hermes"));
    expect(r.errors).toEqual(["invalid_json"]);
    expect(r.calls).toEqual([["read_file", { path: "b" }]]);
    const fewer = Array.from({ length: 20 }, (_, i) => `part ${i} </tool_call>`).join(" ");
    expect(parse(jsonCall("write_file", { path: "a", content: fewer }), withTools("hermes")).calls).toHaveLength(1);
  });
});

describe("issue 15, class 3: an opener after a complete body closes the open block", () => {
  it("splits consecutive calls with a missing close tag, in both formats", () => {
    const hermes = `<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n${jsonCall("read_file", { path: "b" })}`;
    const coder = `<tool_call>\n<function=read_file>\n<parameter=path>\na\n</parameter>\n</function>\n${xmlCall("read_file", { path: "b" })}`;
    for (const [text, format] of [[hermes, "hermes"], [coder, "qwen3coder"]] as const) {
      expect(parseEverySplit(text, withTools(format)).calls).toEqual([["read_file", { path: "a" }], ["read_file", { path: "b" }]]);
    }
  });

  it("does not split an incomplete body", () => {
    const text = `<tool_call>\n{"name": "read_file", "arguments": {"path": \n${jsonCall("read_file", { path: "b" })}`;
    const r = parseEverySplit(text, withTools("hermes"));
    expect(r.calls).toEqual([]);
    expect(r.errors).toHaveLength(1);
  });
});

describe("issue 15, class 4: prose that names the tag is text", () => {
  it("keeps the mention as content and reads the real call after it, in both formats", () => {
    for (const format of ["hermes", "qwen3coder"] as const) {
      const call = format === "hermes" ? jsonCall("read_file", { path: "a" }) : xmlCall("read_file", { path: "a" });
      const r = parseEverySplit(`I put calls in a <tool_call> block.\n${call}`, withTools(format));
      expect(r.calls).toEqual([["read_file", { path: "a" }]]);
      expect(r.content).toBe("I put calls in a <tool_call> block.");
    }
  });

  it("keeps a mention with no call as text, but a bare opener at the end is still a cut-off call", () => {
    expect(parseEverySplit("The <tool_call> tag calls tools.", withTools("hermes"))).toEqual({ calls: [], errors: [], content: "The <tool_call> tag calls tools.", reasoning: null });
    expect(parseEverySplit("Let me look.\n<tool_call>\n", withTools("hermes")).errors).toEqual(["truncated"]);
  });
});

describe("issue 15, class 5: names beyond ASCII", () => {
  const cjk = compileValidators([{ name: "获取天气", parameters: { type: "object", properties: { 城市: { type: "string" } }, required: ["城市"] } }]);
  it("accepts CJK function and parameter names, declared or not", () => {
    const coder = "<tool_call>\n<function=获取天气>\n<parameter=城市>\n北京\n</parameter>\n</function>\n</tool_call>";
    for (const [text, format] of [[coder, "qwen3coder"], [jsonCall("获取天气", { 城市: "北京" }), "hermes"]] as const) {
      expect(parseEverySplit(text, { format, tools: cjk }).calls).toEqual([["获取天气", { 城市: "北京" }]]);
      expect(parseEverySplit(text, { format }).calls).toEqual([["获取天气", { 城市: "北京" }]]);
    }
  });

  it("rejects a name no API can carry even without tools, and keeps declared dotted names", () => {
    for (const name of ["files.read", "read file", "{{tool_name}}"]) {
      expect(parseEverySplit(jsonCall(name, {}), { format: "hermes" }).errors).toEqual(["bad_shape"]);
    }
    expect(parseEverySplit(xmlCall("files.read", { path: "a" }), { format: "qwen3coder" }).errors).toEqual(["bad_shape"]);
    const dotted = compileValidators([{ name: "files.read", parameters: { type: "object", properties: { path: { type: "string" } } } }]);
    expect(parseEverySplit(jsonCall("files.read", { path: "a" }), { format: "hermes", tools: dotted }).calls).toEqual([["files.read", { path: "a" }]]);
  });
});

describe("issue 15, class 6: value spellings a model really writes", () => {
  const search = (params: Record<string, string>) => xmlCall("search", { query: "q", ...params });
  it("reads booleans in any case, None for a nullable, Python reprs and double-encoded JSON", () => {
    const o = withTools("qwen3coder");
    for (const b of ["True", "TRUE", " true ", "false", "FALSE"]) {
      expect(parseEverySplit(search({ verbose: b }), o).calls).toEqual([["search", { query: "q", verbose: b.trim().toLowerCase() === "true" }]]);
    }
    expect(parseEverySplit(search({ cutoff: "None" }), o).calls).toEqual([["search", { query: "q", cutoff: null }]]);
    for (const f of ["{'lang': 'en'}", '"{\\"lang\\": \\"en\\"}"', "\"{'lang': 'en'}\""]) {
      expect(parseEverySplit(search({ filters: f }), o).calls).toEqual([["search", { query: "q", filters: { lang: "en" } }]]);
    }
    const hermes = '<tool_call>\n{"name": "search", "arguments": {"query": "q", "filters": "{\\"lang\\": \\"en\\"}"}}\n</tool_call>';
    expect(parseEverySplit(hermes, withTools("hermes")).calls).toEqual([["search", { query: "q", filters: { lang: "en" } }]]);
  });

  it("omits an empty optional non-string value, keeps an empty string, and never coerces strings", () => {
    const o = withTools("qwen3coder");
    expect(parseEverySplit(search({ limit: "" }), o).calls).toEqual([["search", { query: "q" }]]);
    expect(parseEverySplit(search({ verbose: "  " }), o).calls).toEqual([["search", { query: "q" }]]);
    expect(parseEverySplit(xmlCall("search", { query: "" }), o).errors).toEqual(["schema"]); // minLength 1: kept, then checked
    expect(parseEverySplit(xmlCall("search", { query: "None" }), o).calls).toEqual([["search", { query: "None" }]]);
    expect(parseEverySplit(search({ verbose: "yes" }), o).errors).toEqual(["schema"]);
  });
});

describe("issue 15, class 8: whitespace around qwen3coder values", () => {
  it("strips one framing newline each side and an indented close tag's indentation", () => {
    const o = withTools("qwen3coder");
    const indented = "<tool_call>\n<function=read_file>\n  <parameter=path>\n  a.txt\n  </parameter>\n</function>\n</tool_call>";
    expect(parseEverySplit(indented, o).calls).toEqual([["read_file", { path: "  a.txt" }]]);
    const twoNewlines = xmlCall("write_file", { path: "a", content: "\nbody\n" });
    expect(parseEverySplit(twoNewlines, o).calls).toEqual([["write_file", { path: "a", content: "\nbody\n" }]]);
    const unindented = "<tool_call>\n<function=write_file>\n<parameter=path>\na\n</parameter>\n<parameter=content> \nbody\n </parameter>\n</function>\n</tool_call>";
    expect(parseEverySplit(unindented, o).calls).toEqual([["write_file", { path: "a", content: " \nbody\n " }]]);
  });
});

describe("issue 15, the 200k fuzz: a rejected block's text never leaks into the scan of what follows it", () => {
  const auto = (format: "hermes" | "qwen3coder"): ParserOptions => ({ tools: TOOLS, format, thinking: "auto" });
  const readA = jsonCall("read_file", { path: "a" });

  it("reads a block with an unknown tag body to its close, so a fence line inside it opens no fence", () => {
    // Read as prose, the `~~~~ …` line inside would open a fence, and the think span after it would be text.
    const brokenBlocks = [
      "<tool_call>\n<x>\n~~~~\ncode\n~~~~ <tool_call> is text</x>\n</tool_call>",
      "<tool_call>\non=write_file>\n<parameter=content>\n~~~~\ncode\n~~~~ <tool_call> is text\n</parameter>\n</function>\n</tool_call>",
    ];
    for (const broken of brokenBlocks) {
      for (const format of ["hermes", "qwen3coder"] as const) {
        const r = parseEverySplit(`${broken}\n<think>${readA}</think>\nDone.`, auto(format));
        expect(r.calls).toEqual([]);
        expect(r.errors).toHaveLength(1);
        expect(r.reasoning).toBe(readA);
        expect(r.content).toBe("Done.");
      }
    }
  });

  it("ends a broken block at an open tag that starts a body, and emits that call", () => {
    const r = parseEverySplit(`<tool_call>\n<x> a <tool_call> b\n${readA}\nok`, auto("hermes"));
    expect(r.calls).toEqual([["read_file", { path: "a" }]]);
    expect(r.errors).toHaveLength(1);
  });

  it("ends a qwen3coder value at a line-start parameter not given yet, so the block ends at its first close", () => {
    const broken = "<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/a.ts\nparameter>\n<parameter=content>\nx\n</parameter>\n</function>\n</tool_call>";
    // Stray closes in the reasoning would balance the broken body: read as one value, the block would end there.
    const inner = "I wrote </parameter></function></tool_call> there.";
    const r = parseEverySplit(`${broken}<think>\n${inner}\n</think>\n${xmlCall("read_file", { path: "a" })}`, auto("qwen3coder"));
    expect(r.calls.map((c) => c[0])).toEqual(["write_file", "read_file"]);
    expect(r.calls[1]).toEqual(["read_file", { path: "a" }]);
    expect(r.reasoning).toBe(inner);
  });

  it("ends a block at its quoted close when a call opens after it, so the next call is never swallowed", () => {
    const broken = "<tool_call>\n<function=read_file>\n<parameter=path>\na\n</p'arameter>\n</function>\n</tool_call>";
    // The next call's stray closes would balance the broken body: read on, both blocks would be one.
    const next = jsonCall("read_file", { path: "</parameter></function>" });
    const r = parseEverySplit(`${broken}\n${next}`, { tools: TOOLS, format: "auto", thinking: "auto" });
    // The value reader ends the mangled value at `</function>` (a missing `</parameter>`): its own call.
    expect(r.calls).toEqual([["read_file", { path: "a\n</p'arameter>" }], ["read_file", { path: "</parameter></function>" }]]);
  });

  it("passes the fuzz cases that failed (200,000 outputs of seeds 1 to 4)", () => {
    for (const seed of [994695797, 3744864369, 1105466382, 2978423036, 2564027605, 3815540917, 550874055]) {
      const report = emptyFuzzReport(seed);
      runCase(seed, report);
      expect(report.examples, `case ${seed}`).toEqual([]);
    }
  });
});
