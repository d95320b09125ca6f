// Issue 13, item 2: the largest schemas within the stated limits compile (to a grammar or to a clean error),
// never hang. Their times are measured in docs/grammar.md ("Limits"), not asserted here.

import { describe, expect, it } from "vitest";
import { compileSchema, compileToolGrammar, SCHEMA_LIMITS } from "../../src/grammar/index.js";
import type { ToolDefinition } from "../../src/tools/types.js";
import { largestSchemas } from "../grammar/largest-schemas.js";

const HANG = { timeout: 20_000 };
const ACCEPTABLE = ["ok", "budget_too_small"];

describe("the largest schemas within the limits", () => {
  for (const [name, schema] of Object.entries(largestSchemas())) {
    it(`${name}: completes as a tool (required, the largest budget) and as a response schema`, HANG, () => {
      const tools: ToolDefinition[] = [{ name: "t", parameters: schema as ToolDefinition["parameters"] }];
      const r = compileToolGrammar(tools, { toolChoice: "required", maxTokens: SCHEMA_LIMITS.maxBudgetBytes });
      expect(ACCEPTABLE).toContain(r.ok ? "ok" : r.error.code);
      const s = compileSchema(schema as object, { maxTokens: SCHEMA_LIMITS.maxBudgetBytes });
      expect(ACCEPTABLE).toContain(s.ok ? "ok" : s.error.code);
    });
  }
});
