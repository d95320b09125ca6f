import { describe, expect, it } from "vitest";
import {
  DEFAULT_FORMAT,
  detectFormat,
  getFormat,
  hermes,
  HERMES_SETTINGS,
  jsonCallFormat,
  QWEN3CODER_SETTINGS,
  qwen3coder,
  resolveFormat,
  xmlCallFormat,
} from "../../src/formats/index.js";
import { QtcException } from "../../src/errors.js";

describe("formats", () => {
  it("looks formats up by id and refuses unknown ids with the supported list", () => {
    expect(getFormat("hermes")).toBe(hermes);
    expect(getFormat("qwen3coder")).toBe(qwen3coder);
    expect(() => getFormat("mistral")).toThrow(QtcException);
    expect(() => getFormat("mistral")).toThrow(/hermes, qwen3coder/);
  });

  it("detects the format from a chat template", () => {
    expect(detectFormat("{{- '<tool_call>\\n{\"name\": \"' }}")).toBe(hermes);
    expect(detectFormat("<tool_call>\n<function={{ name }}>\n<parameter={{ k }}>")).toBe(qwen3coder);
    expect(detectFormat("{{ messages }}")).toBeUndefined();
    expect(detectFormat(undefined)).toBeUndefined();
  });

  it("forces the Qwen3 special tokens for the call tags", () => {
    expect(hermes.open).toEqual({ text: "<tool_call>", token: 151657 });
    expect(qwen3coder.close).toEqual({ text: "</tool_call>", token: 151658 });
  });
});

describe("format objects", () => {
  it("resolves an id or an object once, and refuses an unknown id", () => {
    expect(resolveFormat(undefined)).toBe(DEFAULT_FORMAT);
    expect(resolveFormat("qwen3coder")).toBe(qwen3coder);
    expect(resolveFormat(hermes)).toBe(hermes);
    expect(() => resolveFormat("mistral")).toThrow(QtcException);
  });

  it("detects the most specific format whose template markers all appear", () => {
    // A Qwen3-Coder template spells <tool_call> too; its two markers make it the more specific match.
    expect(detectFormat("<tool_call>\n<function=x>\n<parameter=y>")).toBe(qwen3coder);
    expect(detectFormat("<function=x>")).toBeUndefined();
  });

  it("holds its operations: envelope pieces, parameter tags and tag words from its own data", () => {
    expect(hermes.bodyAround("f")).toEqual({ before: '{"name": "f", "arguments": ', after: "}" });
    expect(qwen3coder.bodyAround("f")).toEqual({ before: "<function=f>\n", after: "</function>" });
    expect(hermes.parameterTags()).toBeUndefined();
    expect(qwen3coder.parameterTags()).toEqual({ open: "<parameter=", end: ">\n", close: "\n</parameter>\n" });
    expect(qwen3coder.tagWords()).toEqual(["<tool_call>", "</tool_call>", "<think>", "</think>", "<function=", "</function>", "<parameter=", "</parameter>"]);
    expect(hermes.bodyShape("<function-name>", "<args-json-object>")).toBe('{"name": <function-name>, "arguments": <args-json-object>}');
    expect(qwen3coder.bodyShape("...", "")).toBe("<function=...></function>");
  });

  it("builds a variant from the settings data alone", () => {
    const variant = jsonCallFormat({ ...HERMES_SETTINGS, id: "keys", spelling: { ...HERMES_SETTINGS.spelling, nameKey: "tool", argumentsKey: "input" } });
    expect(variant.bodyAround("f").before).toBe('{"tool": "f", "input": ');
    expect(variant.valueClosers).toEqual(hermes.valueClosers);
    expect(xmlCallFormat({ ...QWEN3CODER_SETTINGS, id: "x" }).valueClosers).toEqual(qwen3coder.valueClosers);
  });
});
