import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { QtcException } from "../../src/errors.js";
import { jsonErrorOffset } from "../../src/tools/json-position.js";
import { loadToolsFile } from "../../src/tools/index.js";

const dir = mkdtempSync(join(tmpdir(), "qtc-tools-"));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
function failure(path: string): QtcException {
  try {
    loadToolsFile(path);
  } catch (e) {
    if (e instanceof QtcException) return e;
    throw e;
  }
  throw new Error("expected a failure");
}

describe("loadToolsFile", () => {
  it("loads a list, or a request body with a tools array", () => {
    const tools = [{ type: "function", function: { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } } } } }];
    expect(loadToolsFile(file("list.json", JSON.stringify(tools))).names).toEqual(["read_file"]);
    expect(loadToolsFile(file("body.json", "\uFEFF" + JSON.stringify({ model: "x", tools }))).names).toEqual(["read_file"]);
  });

  it("says clearly what is wrong", () => {
    expect(failure(join(dir, "missing.json")).code).toBe("file_not_found");
    expect(failure(dir).code).toBe("file_not_found");
    const bad = failure(file("bad.json", '[\n  {"name": "a",\n   "parameters": }\n]'));
    expect(bad.code).toBe("invalid_tools");
    expect(bad.message).toContain("line 3, column 18");
    expect(failure(file("obj.json", '{"name": "a"}')).code).toBe("invalid_tools");
    const schema = failure(file("schema.json", '[{"name": "grep", "parameters": {"type": "object", "properties": {"p": {"type": 5}}}}]'));
    expect(schema.code).toBe("invalid_schema");
    expect(schema.message).toContain('"grep"');
  });
});

describe("jsonErrorOffset", () => {
  it("finds where strict JSON goes wrong", () => {
    expect(jsonErrorOffset('{"a": [1, 2]}')).toBeUndefined();
    expect(jsonErrorOffset('{"a": [1, 2,]}')).toBe(12);
    expect(jsonErrorOffset('{"a": "x\ny"}')).toBe(8);
    expect(jsonErrorOffset('{"a": 01}')).toBe(7);
    expect(jsonErrorOffset('{"a": 1} x')).toBe(9);
    expect(jsonErrorOffset('{"a": tru}')).toBe(9);
    expect(jsonErrorOffset('{"a": "\\q"}')).toBe(8);
    expect(jsonErrorOffset('{"a"')).toBe(4);
  });
});
