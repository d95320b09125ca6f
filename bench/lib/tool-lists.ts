// Owns: the tool lists the grammar benches compile: the real clients' lists (test/fixtures/clients) and 200
// seeded generated tools. bench:grammar, bench:grammar-runtime and test/regressions/37 share them.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { normalizeTools, type ToolDefinition } from "../../dist/index.js";
import { grammarsDir } from "./internals.js";

/** The client tool lists of test/fixtures/clients, normalized (Responses API function tools read as bare ones). */
export function clientToolLists(): [string, ToolDefinition[]][] {
  const dir = join(grammarsDir(), "..", "test", "fixtures", "clients");
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith(".json")).sort();
  } catch {
    return [];
  }
  return files.map((f) => {
    const fixture = JSON.parse(readFileSync(join(dir, f), "utf8")) as { client: string; tools: Record<string, unknown>[] };
    const tools = fixture.tools.map((t) => (t.type === "function" && !t.function ? { name: t.name, parameters: t.parameters } : t));
    return [`${fixture.client} (${tools.length} tools)`, normalizeTools(tools)];
  });
}

/** 200 varied tools: strings with and without bounds, enums, integers, nested objects, arrays (seeded). */
export function generatedTools(count = 200): ToolDefinition[] {
  let seed = 7;
  const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  const kinds = [
    () => ({ type: "string" }),
    () => ({ type: "string", maxLength: 8 + Math.floor(next() * 120) }),
    () => ({ type: "string", enum: ["low", "medium", "high", `v${Math.floor(next() * 100)}`] }),
    () => ({ type: "integer", minimum: 0, maximum: 10 + Math.floor(next() * 1000) }),
    () => ({ type: "number" }),
    () => ({ type: "boolean" }),
    () => ({ type: "array", items: { type: "string", maxLength: 32 }, maxItems: 1 + Math.floor(next() * 6) }),
    () => ({ type: "object", properties: { id: { type: "integer" }, label: { type: "string", maxLength: 40 } }, required: ["id"] }),
    () => ({ type: "string", format: pick(["date", "uuid"]) }),
  ];
  return Array.from({ length: count }, (_, i) => {
    const n = 1 + Math.floor(next() * 5);
    const properties: Record<string, unknown> = {};
    for (let j = 0; j < n; j++) properties[`arg_${j}_${pick(["path", "name", "query", "mode", "size"])}`] = pick(kinds)();
    const names = Object.keys(properties);
    return { name: `tool_${i}`, parameters: { type: "object", properties, required: names.filter(() => next() < 0.6), additionalProperties: false } };
  });
}
