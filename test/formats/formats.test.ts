import { describe, expect, it } from "vitest";
import { detectFormat, getFormat, hermes, qwen3coder } from "../../src/formats/index.js";
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
