// Issue 13, item 2: `qtc grammar` hung on a tools file whose schema has a huge item bound; it now prints the
// one-line error with the keyword's pointer and exits 2.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "qtc-13-grammar-"));

for (const [what, a] of [
  ["minItems 1e15", { type: "array", items: { type: "string" }, minItems: 1e15 }],
  ["a 20,000-value enum", { enum: Array.from({ length: 20_000 }, (_, i) => `v${i}`) }],
] as const) {
  it(`qtc grammar refuses ${what} in one line, exit 2`, { timeout: 10_000 }, async () => {
    const path = join(dir, "tools.json");
    writeFileSync(path, JSON.stringify([{ name: "t", parameters: { type: "object", properties: { a }, required: ["a"] } }]));
    const r = await runCli(["grammar", "--tools", path, "--tool-choice", "required"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("/properties/a/");
  });
}
