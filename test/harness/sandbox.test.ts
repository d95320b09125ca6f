// Owns: tests for src/harness/sandbox.ts and the file tools: every escape route is refused with its code, and every
// cap is hit and said.

import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeTool } from "../../src/harness/execute.js";
import { resolveInside, splitPath } from "../../src/harness/sandbox.js";
import { createWorkspace, removeWorkspace, type Workspace } from "../../src/harness/workspace.js";
import { makeScratch, makeTask, removeScratch, snapshot, type Scratch } from "./helpers.js";

let s: Scratch;
let ws: Workspace;
let before: Record<string, string>;

beforeAll(async () => {
  s = await makeScratch();
  const dir = await makeTask(s.tasks, {
    id: "sandbox-task",
    files: {
      "src/a.js": "export const a = 1;\n",
      "src/b.js": "export const b = 'needle';\n",
      "README.md": "hello\n",
    },
    solution: { "src/a.js": "SOLUTION\n" },
    links: {
      "etc-link": "/etc",
      "secret-link": path.join(s.root, "sentinel", "secret.txt"),
      "out-dir": path.join(s.root, "sentinel"),
      "in-dir": "src",
      "dangling": path.join(s.root, "sentinel", "nope.txt"),
    },
  });
  before = await snapshot(s.sentinel);
  ws = await createWorkspace(dir, {
    tmpRoot: s.runs,
    limits: { maxReadBytes: 64, maxWriteBytes: 100, maxTotalWriteBytes: 150, maxListEntries: 5, maxGrepMatches: 3 },
  });
});

afterAll(async () => {
  await removeWorkspace(ws);
  expect(await snapshot(s.sentinel)).toEqual(before);
  await removeScratch(s);
});

describe("splitPath", () => {
  it.each([
    ["/etc/passwd", "absolute_path"],
    ["\\\\server\\share", "absolute_path"],
    ["C:\\Windows", "absolute_path"],
    ["~/.ssh/id_rsa", "absolute_path"],
    ["../../etc/passwd", "parent_path"],
    ["src/../../x", "parent_path"],
    ["", "invalid_path"],
    ["a\0b", "invalid_path"],
  ])("refuses %j with %s", (given, code) => {
    const r = splitPath(given);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.outcome.code).toBe(code);
  });

  it("normalizes harmless paths", () => {
    expect(splitPath("./src//a.js")).toEqual({ ok: true, segments: ["src", "a.js"] });
    expect(splitPath(".")).toEqual({ ok: true, segments: [] });
  });
});

describe("resolveInside", () => {
  it("resolves a symlink that stays inside", async () => {
    const r = await resolveInside(ws.root, "in-dir/a.js");
    expect(r).toEqual({ ok: true, real: path.join(ws.root, "src", "a.js"), rel: "in-dir/a.js", kind: "file" });
  });

  it.each(["etc-link/passwd", "etc-link", "secret-link", "out-dir/deep/keep.js", "out-dir/new.txt", "dangling"])(
    "refuses %s as outside_workspace",
    async (given) => {
      const r = await resolveInside(ws.root, given);
      expect(r.ok ? "resolved" : r.outcome.code).toBe("outside_workspace");
    },
  );

  it("reports a missing tail for writes", async () => {
    const r = await resolveInside(ws.root, "src/new/x.js");
    expect(r).toMatchObject({ ok: true, kind: "missing", real: path.join(ws.root, "src", "new", "x.js") });
  });

  it("refuses a file used as a folder", async () => {
    const r = await resolveInside(ws.root, "README.md/x");
    expect(r.ok ? "resolved" : r.outcome.code).toBe("not_a_directory");
  });
});

describe("tools", () => {
  it("the workspace holds the project but not the solution or task.json", async () => {
    const list = await executeTool(ws, "list_files", { path: "." });
    expect(list.code).toBe("capped");
    expect(await fs.readdir(ws.root)).not.toContain("solution");
    expect(await fs.readdir(ws.root)).not.toContain("task.json");
    expect(await fs.readFile(path.join(ws.root, "src", "a.js"), "utf8")).toBe("export const a = 1;\n");
  });

  it("read_file reads, caps and refuses", async () => {
    expect(await executeTool(ws, "read_file", { path: "src/a.js" })).toEqual({ code: "ok", text: "export const a = 1;\n" });
    await fs.writeFile(path.join(ws.root, "big.txt"), "é".repeat(100));
    const big = await executeTool(ws, "read_file", { path: "big.txt" });
    expect(big.code).toBe("capped");
    expect(big.text.startsWith("é".repeat(32) + "\n[truncated")).toBe(true);
    expect((await executeTool(ws, "read_file", { path: "src" })).code).toBe("not_a_file");
    expect((await executeTool(ws, "read_file", { path: "nope.js" })).code).toBe("not_found");
    expect((await executeTool(ws, "read_file", { path: "secret-link" })).code).toBe("outside_workspace");
  });

  it("write_file writes inside, creates folders, and refuses escapes and huge writes", async () => {
    expect(await executeTool(ws, "write_file", { path: "lib/new.js", content: "x" })).toEqual({
      code: "ok",
      text: "Wrote 1 bytes to lib/new.js (new file).",
    });
    expect(await fs.readFile(path.join(ws.root, "lib", "new.js"), "utf8")).toBe("x");
    expect((await executeTool(ws, "write_file", { path: "/tmp/x.js", content: "x" })).code).toBe("absolute_path");
    expect((await executeTool(ws, "write_file", { path: "../x.js", content: "x" })).code).toBe("parent_path");
    expect((await executeTool(ws, "write_file", { path: "out-dir/pwned.txt", content: "x" })).code).toBe("outside_workspace");
    expect((await executeTool(ws, "write_file", { path: "dangling", content: "x" })).code).toBe("outside_workspace");
    expect((await executeTool(ws, "write_file", { path: "secret-link", content: "x" })).code).toBe("outside_workspace");
    expect((await executeTool(ws, "write_file", { path: "src", content: "x" })).code).toBe("not_a_file");
    expect((await executeTool(ws, "write_file", { path: "huge.txt", content: "x".repeat(101) })).code).toBe("too_large");
    await expect(fs.stat(path.join(ws.root, "huge.txt"))).rejects.toThrow();
    // the run budget: 1 + 100 written, then 100 more is over 150
    expect((await executeTool(ws, "write_file", { path: "w1.txt", content: "y".repeat(100) })).code).toBe("ok");
    expect((await executeTool(ws, "write_file", { path: "w2.txt", content: "y".repeat(100) })).code).toBe("too_large");
    expect(ws.written).toBe(101);
  });

  it("list_files lists recursively without following links, and caps", async () => {
    const r = await executeTool(ws, "list_files", { path: "src" });
    expect(r).toEqual({ code: "ok", text: "src/a.js\nsrc/b.js" });
    const root = await executeTool(ws, "list_files", { path: "." });
    expect(root.code).toBe("capped");
    expect(root.text.split("\n")).toHaveLength(6);
    expect((await executeTool(ws, "list_files", { path: "out-dir" })).code).toBe("outside_workspace");
    expect((await executeTool(ws, "list_files", { path: "in-dir" })).text).toBe("in-dir/a.js\nin-dir/b.js");
  });

  it("grep finds lines, refuses bad patterns and outside paths, and caps matches", async () => {
    expect(await executeTool(ws, "grep", { pattern: "needle", path: "." })).toEqual({
      code: "ok",
      text: "src/b.js:1: export const b = 'needle';",
    });
    expect((await executeTool(ws, "grep", { pattern: "(unclosed", path: "." })).code).toBe("invalid_regex");
    expect((await executeTool(ws, "grep", { pattern: "(?<=a)b", path: "." })).code).toBe("invalid_regex");
    expect((await executeTool(ws, "grep", { pattern: "SECRET", path: "out-dir" })).code).toBe("outside_workspace");
    // links to outside are never searched when walking a folder
    expect((await executeTool(ws, "grep", { pattern: "SECRET", path: "." })).text).toBe('No matches for "SECRET" in ..');
    const many = await executeTool(ws, "grep", { pattern: ".", path: "." });
    expect(many.code).toBe("capped");
    expect(many.text.split("\n").filter((l) => /^\S+:\d+: /.test(l))).toHaveLength(3);
  });

  it("grep stays linear on (a+)+$ over a long line", async () => {
    // A backtracking engine never finishes this line (2^200000 paths); RE2 reads it once. That grep answers at
    // all is the property; test/tools/linear-regexp.test.ts counts RE2's reads (n against 10·n).
    await fs.writeFile(path.join(ws.root, "long.txt"), `${"a".repeat(200_000)}b\n`);
    const r = await executeTool(ws, "grep", { pattern: "(a+)+$", path: "long.txt" });
    expect(r).toEqual({ code: "ok", text: 'No matches for "(a+)+$" in long.txt.' });
  });

  it("grep bounds the work of large patterns: too complex is refused, lines too long for it are skipped, and it says so", async () => {
    await fs.writeFile(path.join(ws.root, "ab.txt"), `${"ab".repeat(20_000)}c\n`);
    const huge = await executeTool(ws, "grep", { pattern: `${"[ab]{1000}".repeat(12)}$`, path: "ab.txt" });
    expect(huge.code).toBe("invalid_regex");
    expect(huge.text).toMatch(/^Error: the pattern is too complex \(\d+ RE2 instructions; at most 10000\)/);
    // The work bound is the skipped line itself: grep says it did not search it.
    const big = await executeTool(ws, "grep", { pattern: "[ab]{1000}[ab]{990}$", path: "ab.txt" });
    expect(big.code).toBe("capped");
    expect(big.text).toMatch(/^No matches for .* in ab\.txt\.\n\[1 line\(s\) longer than \d+ characters not searched: too long for a pattern this large\]$/);
  });

  it("bad arguments and unknown tools are results, not exceptions", async () => {
    expect((await executeTool(ws, "delete_everything", {})).code).toBe("unknown_tool");
    expect((await executeTool(ws, "read_file", {})).code).toBe("invalid_arguments");
    expect((await executeTool(ws, "read_file", { path: 3 })).code).toBe("invalid_arguments");
    expect((await executeTool(ws, "run_tests", { verbose: "yes" })).code).toBe("invalid_arguments");
  });
});
