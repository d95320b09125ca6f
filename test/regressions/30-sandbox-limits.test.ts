// Issue 30, item 14: the sandbox had no resource limits: its /tmp was a tmpfs the size of half the host's RAM,
// and code the model wrote could take gigabytes of memory and hundreds of processes. Each limit is now tried
// from inside a test run and seen to stop the attempt, while this process and the next run stay fine.
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESOURCE_DEFAULTS, type ResourceLimits } from "../../src/harness/os-sandbox.js";
import { makeSandboxCgroup } from "../../src/harness/sandbox-cgroup.js";
import { runSuite } from "../../src/harness/run-tests.js";
import { createWorkspace, removeWorkspace } from "../../src/harness/workspace.js";
import { makeScratch, makeTask, removeScratch, type Scratch } from "../harness/helpers.js";

let s: Scratch;
beforeAll(async () => {
  s = await makeScratch();
});
afterAll(async () => {
  await removeScratch(s);
});

const MIB = 1 << 20;
/** Small limits, so each is reached fast. */
const SMALL: ResourceLimits = { ...RESOURCE_DEFAULTS, memoryBytes: 384 * MIB, totalMemoryBytes: 1024 * MIB, processes: 96, fileBytes: 8 * MIB, tmpBytes: 16 * MIB };

/**
 * Runs one test file that tries to exceed a limit and prints `RESULT <json>` with what it got; the test itself
 * passes either way, so the figures, not the verdict, tell what the sandbox allowed.
 */
async function attempt(id: string, body: string, resources: ResourceLimits = SMALL): Promise<Record<string, unknown>> {
  const task = await makeTask(s.tasks, {
    id,
    files: {
      "test/try.test.js": `import { test } from "node:test";\nimport fs from "node:fs";\nimport { spawn, spawnSync } from "node:child_process";\ntest("try", async () => {\n  const out = {};\n${body}\n  console.log("RESULT " + JSON.stringify(out));\n});\n`,
    },
  });
  const ws = await createWorkspace(task, { tmpRoot: s.runs, limits: { resources, testTimeoutMs: 60_000 } });
  try {
    const r = await runSuite(ws);
    const line = /RESULT (\{.*\})/.exec(r.output);
    expect(line, r.output).not.toBeNull();
    return JSON.parse(line![1]!) as Record<string, unknown>;
  } finally {
    await removeWorkspace(ws);
  }
}

describe("issue 30: the sandbox bounds memory, processes, file size and /tmp", () => {
  it("memory: one process cannot allocate past its limit", async () => {
    const out = await attempt(
      "memory",
      "  const held = [];\n  try { for (let i = 0; i < 64; i++) held.push(Buffer.alloc(32 << 20, 1)); } catch (e) { out.error = String(e.message); }\n  out.mib = held.length * 32;",
    );
    expect(out.error).toBeDefined();
    expect(out.mib as number).toBeLessThan(384);
  });

  it("/tmp: a write stops at the tmpfs size (a shell writes it: Node's permission model keeps the tests' own Node out of /tmp)", async () => {
    const out = await attempt(
      "tmp",
      '  const r = spawnSync("/bin/sh", ["-c", "head -c 67108864 /dev/zero > /tmp/fill; echo rc=$?; wc -c < /tmp/fill"], { encoding: "utf8" });\n  out.text = r.stdout + r.stderr;\n  out.bytes = Number(/^(\\d+)$/m.exec(r.stdout)?.[1]);',
      { ...SMALL, fileBytes: 1024 * MIB },
    );
    expect(out.text).toMatch(/No space left on device/);
    expect(out.bytes).toBeGreaterThan(0);
    expect(out.bytes as number).toBeLessThanOrEqual(16 * MIB);
  });

  it("file size: a file in the run folder cannot grow past its limit", async () => {
    const out = await attempt(
      "fsize",
      '  let n = 0;\n  const chunk = Buffer.alloc(1 << 20, 1);\n  try { const fd = fs.openSync("big.bin", "w"); for (let i = 0; i < 64; i++) { fs.writeSync(fd, chunk); n++; } } catch (e) { out.error = e.code; }\n  out.mib = n;',
    );
    expect(out.error).toBe("EFBIG");
    expect(out.mib).toBe(8);
  });

  it("processes: a burst of children is stopped at the cap", async () => {
    const out = await attempt(
      "procs",
      '  const kids = [];\n  let errors = 0;\n  for (let i = 0; i < 300; i++) {\n    const k = spawn("/bin/sleep", ["30"], { stdio: "ignore" });\n    k.on("error", () => errors++);\n    kids.push(k);\n  }\n  await new Promise((r) => setTimeout(r, 500));\n  out.running = kids.filter((k) => k.pid !== undefined && k.exitCode === null && k.signalCode === null).length;\n  out.errors = errors;\n  for (const k of kids) k.kill("SIGKILL");',
    );
    expect(out.errors as number).toBeGreaterThan(0);
    expect(out.running as number).toBeLessThan(96);
  });

  /** Where this process may make a cgroup, the sandbox gets one: probed the way the sandbox makes it. */
  const probe = makeSandboxCgroup({ tasks: 64, memoryBytes: 64 * MIB });
  void probe?.remove();
  it.skipIf(probe === null)("memory of the whole sandbox (where a cgroup can be made): processes each within their own limit cannot pass it together", async () => {
    const out = await attempt(
      "total",
      '  const hog = "const held = []; for (let i = 0; i < 10; i++) held.push(Buffer.alloc(32 << 20, 1)); setTimeout(() => {}, 3000);";\n' +
        '  const kids = [0, 1, 2, 3].map(() => spawn(process.execPath, ["-e", hog], { stdio: "ignore" }));\n' +
        '  const ends = await Promise.all(kids.map((k) => new Promise((r) => k.on("exit", (code, signal) => r(signal ?? code)))));\n' +
        "  out.ends = ends;",
      { ...SMALL, totalMemoryBytes: 640 * MIB },
    );
    // Each child takes 320 MiB, within its own 384 MiB; four of them pass the sandbox's 640 MiB: some are killed.
    expect((out.ends as unknown[]).filter((e) => e === "SIGKILL").length).toBeGreaterThan(0);
    expect((out.ends as unknown[]).filter((e) => e === 0).length).toBeGreaterThan(0);
  });

  it("the host stays fine: after the attempts an ordinary run passes", async () => {
    const task = await makeTask(s.tasks, { id: "ordinary", files: { "test/ok.test.js": 'import { test } from "node:test";\ntest("ok", () => {});\n' } });
    const ws = await createWorkspace(task, { tmpRoot: s.runs });
    try {
      expect((await runSuite(ws)).passed).toBe(true);
    } finally {
      await removeWorkspace(ws);
    }
    expect(await fs.readdir(s.runs)).toEqual([]);
    expect(path.isAbsolute(s.runs)).toBe(true);
  });
});
