// Owns: tests for src/harness/os-sandbox.ts: a missing or failing bwrap is refused with sandbox_unavailable
// (never a silent unconfined run), "off" is the explicit way out, and the sandbox hides the real home, the
// qtc package and other runs, and keeps a judged project read-only.
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QtcException } from "../../src/errors.js";
import { findBwrap, resolveSandbox } from "../../src/harness/os-sandbox.js";
import { runSuite } from "../../src/harness/run-tests.js";
import { createWorkspace, removeWorkspace } from "../../src/harness/workspace.js";
import { makeScratch, makeTask, removeScratch, type Scratch } from "./helpers.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

let s: Scratch;
beforeAll(async () => {
  s = await makeScratch();
});
afterAll(async () => {
  await removeScratch(s);
});

async function codeOf(p: Promise<unknown>): Promise<string | null> {
  try {
    await p;
    return null;
  } catch (e) {
    return e instanceof QtcException ? e.code : `not a QtcException: ${String(e)}`;
  }
}

describe("resolveSandbox", () => {
  it("finds bwrap on this machine and it passes its self-check", async () => {
    const bwrap = findBwrap();
    expect(bwrap).not.toBeNull();
    expect(await resolveSandbox("bwrap")).toEqual({ kind: "bwrap", bwrap });
  });

  it("refuses when bwrap is missing, or is not bwrap (a program that exits 0 without running node)", async () => {
    expect(await codeOf(resolveSandbox("bwrap", null))).toBe("sandbox_unavailable");
    expect(await codeOf(resolveSandbox("bwrap", path.join(s.root, "no-such-bwrap")))).toBe("sandbox_unavailable");
    expect(await codeOf(resolveSandbox("bwrap", "/bin/true"))).toBe("sandbox_unavailable");
    expect(await codeOf(resolveSandbox("bwrap", "/bin/false"))).toBe("sandbox_unavailable");
  });

  it('"off" is an explicit unconfined run', async () => {
    expect(await resolveSandbox("off", null)).toEqual({ kind: "off" });
  });
});

describe("inside the sandbox", () => {
  it("the real home, the qtc package, other runs and the host's /etc/passwd cannot be read", async () => {
    const other = path.join(s.runs, "other-run.txt");
    await fs.writeFile(other, "another run's file");
    const probes = { root: "/root", pkg: path.join(repo, "package.json"), other, passwd: "/etc/passwd", home: "/home", task: s.tasks };
    const dir = await makeTask(s.tasks, {
      id: "hidden-paths",
      type: "commonjs",
      files: {
        "test/probe.test.js": `const fs = require("node:fs");\nconst { test } = require("node:test");\nconst probes = ${JSON.stringify(probes)};\ntest("probe", () => { for (const [k, p] of Object.entries(probes)) { let r; try { r = "READ:" + (fs.statSync(p).isDirectory() ? fs.readdirSync(p).join(",") : fs.readFileSync(p, "utf8").slice(0, 20)); } catch (e) { r = "DENIED:" + e.code; } console.log("PROBE " + k + " " + r); } });\n`,
      },
    });
    const ws = await createWorkspace(dir, { tmpRoot: s.runs, limits: { confineTests: false } });
    const r = await runSuite(ws);
    await removeWorkspace(ws);
    expect(r.passed).toBe(true);
    for (const k of Object.keys(probes)) expect(r.output).toMatch(new RegExp(`^PROBE ${k} DENIED:E[A-Z]+$`, "m"));
  });

  it("a read-only project (the verdict) cannot be written, while HOME and TMPDIR can", async () => {
    const dir = await makeTask(s.tasks, {
      id: "read-only-project",
      type: "commonjs",
      files: {
        "test/ro.test.js": `const fs = require("node:fs");\nconst path = require("node:path");\nconst { test } = require("node:test");\nconst assert = require("node:assert/strict");\ntest("ro", () => { assert.throws(() => fs.writeFileSync(__filename, "rewritten"), { code: "EROFS" }); fs.writeFileSync(path.join(process.env.HOME, "h"), "x"); fs.writeFileSync(path.join(process.env.TMPDIR, "t"), "x"); fs.writeFileSync("/tmp/private", "x"); });\n`,
      },
    });
    const ws = await createWorkspace(dir, { tmpRoot: s.runs, limits: { confineTests: false } });
    const r = await runSuite(ws, { readOnlyProject: true });
    const after = await fs.readFile(path.join(ws.root, "test/ro.test.js"), "utf8");
    const home = await fs.readdir(ws.home);
    await removeWorkspace(ws);
    expect(r.output).toContain("pass 1");
    expect(r.passed).toBe(true);
    expect(after).not.toBe("rewritten");
    expect(home).toEqual(["h"]);
    expect(await fs.stat("/tmp/private").catch(() => null)).toBeNull();
  });
});
