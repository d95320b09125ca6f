import { describe, expect, it } from "vitest";
import { argumentsTypeName, toolDeclarations } from "../../src/tools/declarations.js";
import { normalizeTools } from "../../src/tools/normalize.js";

describe("tool declarations", () => {
  it("names argument types in PascalCase", () => {
    expect(argumentsTypeName("read_file")).toBe("ReadFileArguments");
    expect(argumentsTypeName("run-tests")).toBe("RunTestsArguments");
    expect(argumentsTypeName("2fa.verify")).toBe("T2faVerifyArguments");
  });

  it("prints one interface per tool and a name → arguments map", async () => {
    const tools = normalizeTools([
      {
        type: "function",
        function: {
          name: "read_file",
          parameters: {
            type: "object",
            properties: { path: { type: "string" }, limit: { type: "integer" }, mode: { enum: ["text", "bytes"] } },
            required: ["path"],
            additionalProperties: false,
          },
        },
      },
      { name: "run_tests", input_schema: { type: "object", properties: {} } },
    ]);
    const ts = await toolDeclarations(tools);
    expect(ts).toContain("export interface ReadFileArguments {");
    expect(ts).toMatch(/\n  path: string;\n/);
    expect(ts).toMatch(/\n  limit\?: number;\n/);
    expect(ts).toMatch(/\n  mode\?: "text" \| "bytes";\n/);
    expect(ts).toContain("export interface RunTestsArguments {}");
    expect(ts).toContain('  "read_file": ReadFileArguments;\n  "run_tests": RunTestsArguments;\n}');
  });
});
