// ArgumentStreamer with the parser, on calls as each format's template writes them, cut anywhere: under the grammar
// a call starts once its name is read, its argument deltas concatenate to the parser's final `arguments`, and the
// call keeps one index and one id; text written without the grammar, and a tool whose keys could move, go out whole.

import { describe, expect, test } from "vitest";
import { streamEventsOf, type ContentEvent } from "../../src/adapters/index.js";
import { FORMATS, type ToolCallFormat } from "../../src/formats/index.js";
import { canonicalJson } from "../../src/grammar/canonical-json.js";
import { createParser, type ParseEvent } from "../../src/parse/index.js";
import { streamableSchema, turnStreaming } from "../../src/runtime/argument-streamer.js";
import { compileValidators } from "../../src/tools/index.js";

const TOOLS = compileValidators([
  { type: "function", function: { name: "write_file", parameters: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } }, required: ["path", "content"] } } },
  { type: "function", function: { name: "put", parameters: { type: "object", properties: { path: { type: "string" }, n: { type: "integer" }, tags: { type: "array", items: { type: "string" } } }, required: ["path"] } } },
  { type: "function", function: { name: "open_map", parameters: { type: "object", properties: { m: { type: "object", additionalProperties: { type: "integer" } } } } } },
]);

/** A call block as the format's template writes it (json.dumps values). */
function block(format: ToolCallFormat, name: string, args: Record<string, unknown>): string {
  let text = "";
  const out = { markup: (t: string) => (text += t), content: (t: string) => (text += t) };
  format.renderCall(out, { name, arguments: args }, { json: canonicalJson, str: (v) => (typeof v === "string" ? v : canonicalJson(v)) });
  return text;
}

/** Stream `pieces` through the parser and a streamer as the runtime does; every piece is under the grammar unless `free`. */
function run(format: ToolCallFormat, pieces: readonly string[], free = false): ContentEvent[] {
  let calls = 0;
  const nextIndex = () => calls++;
  const streaming = turnStreaming(free ? "unconstrained" : "constrained", format, TOOLS);
  const parser = createParser({ tools: TOOLS, format, thinking: "closed", newId: streaming.newId });
  const streamer = streaming.create(nextIndex);
  const events: ContentEvent[] = [];
  const settle = (e: ParseEvent) => (streamer ? streamer.settle(e) : streamEventsOf(e, nextIndex));
  for (const piece of pieces) {
    streamer?.push(piece, true);
    for (const e of parser.feed(piece)) events.push(...settle(e));
    if (streamer) events.push(...streamer.pull());
  }
  for (const e of parser.end()) events.push(...settle(e));
  return events;
}

/** Each call's start, deltas and whole call, checked: one index and id, deltas concatenating to its arguments. */
function calls(events: ContentEvent[]): { name: string; deltas: number; streamedBeforeEnd: boolean }[] {
  const out: { name: string; deltas: number; streamedBeforeEnd: boolean }[] = [];
  for (const e of events) {
    if (e.type !== "tool-call") continue;
    const start = events.find((s) => s.type === "tool-call-start" && s.index === e.index);
    expect(start).toMatchObject({ id: e.call.id, name: e.call.name });
    const deltas = events.filter((d) => d.type === "tool-call-delta" && d.index === e.index) as Extract<ContentEvent, { type: "tool-call-delta" }>[];
    expect(deltas.every((d) => d.id === e.call.id)).toBe(true);
    expect(deltas.map((d) => d.argumentsDelta).join("")).toBe(e.call.arguments);
    const position = events.indexOf(e);
    out.push({ name: e.call.name, deltas: deltas.length, streamedBeforeEnd: deltas.length > 1 && events.indexOf(deltas[0]!) < position - 1 });
  }
  return out;
}

const ARGS = { path: "src/a b.ts", content: 'line 1\n  "quoted" \\ <b>tag</b> </x\nemoji 😀 é\n' };

describe.each(Object.values(FORMATS).map((f) => [f.id, f] as const))("ArgumentStreamer, %s", (_, format) => {
  const text = "Sure.\n" + format.open.text + block(format, "write_file", ARGS).slice(format.open.text.length) + format.blockSeparator + block(format, "put", { path: "p", n: 3, tags: ["a"] });

  test("one character at a time and in pieces of 1 to 9: deltas concatenate to each call's arguments", () => {
    for (const size of [1, 2, 3, 5, 9, text.length]) {
      // The open tag is one token: it arrives whole.
      const pieces: string[] = [];
      text.split(format.open.text).forEach((part, k) => {
        if (k > 0) pieces.push(format.open.text);
        for (let i = 0; i < part.length; i += size) pieces.push(part.slice(i, i + size));
      });
      const got = calls(run(format, pieces));
      expect(got.map((c) => c.name)).toEqual(["write_file", "put"]);
      if (size === 1) expect(got[0]!.streamedBeforeEnd, JSON.stringify(got)).toBe(true);
    }
  });

  test("unconstrained: each call goes out whole once judged (start, one delta, the call)", () => {
    const events = run(format, [text], true);
    const kinds = events.filter((e) => e.type.startsWith("tool-call")).map((e) => e.type);
    expect(kinds).toEqual(["tool-call-start", "tool-call-delta", "tool-call", "tool-call-start", "tool-call-delta", "tool-call"]);
    calls(events);
  });
});

describe("streamableSchema", () => {
  test("objects open to other names, or a property named like an array index, are not streamed", () => {
    expect(streamableSchema({ type: "object", properties: { a: { type: "string" } } })).toBe(true);
    expect(streamableSchema({ type: "object", additionalProperties: false, properties: { a: { type: "object", additionalProperties: false } } })).toBe(true);
    expect(streamableSchema({ type: "object", properties: { m: { type: "object", additionalProperties: { type: "integer" } } } })).toBe(false);
    expect(streamableSchema({ type: "object", patternProperties: { "^x": {} } })).toBe(false);
    expect(streamableSchema({ type: "object", properties: { "0": { type: "string" } } })).toBe(false);
  });

  test("a hermes call to such a tool goes out whole", () => {
    const events = run(FORMATS.hermes!, [block(FORMATS.hermes!, "open_map", { m: { b: 1, "2": 3 } })]);
    expect(events.filter((e) => e.type === "tool-call-delta")).toHaveLength(1);
    calls(events);
  });
});
