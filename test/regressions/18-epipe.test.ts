// Issue 18, item 3: `qtc grammar … | head -1` died with an EPIPE stack trace. The installed command (bin/qtc.js)
// now exits quietly, with status 0, when the reader of its stdout goes away: the reader got what it asked for.

import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

it("qtc grammar piped into head -1 prints one line and exits 0 without a stack trace", { timeout: 30_000 }, () => {
  // The harness tools compile to about 100 KB of grammar: more than a pipe buffer, so writes outlive the reader.
  const r = spawnSync("bash", ["-c", 'node bin/qtc.js grammar --tools grammars/harness-tools.json | head -1; exit "${PIPESTATUS[0]}"'], {
    cwd: root,
    encoding: "utf8",
  });
  expect(r.stdout.split("\n").filter(Boolean)).toHaveLength(1);
  expect(r.stderr).not.toMatch(/EPIPE|Error|at /);
  expect(r.status).toBe(0);
});
