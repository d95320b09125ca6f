// Issue 13, item 4: code the model writes runs inside an OS sandbox. Through `run_tests` it could read files
// outside the workspace via a symlink the task ships, write anywhere from a child process, open network
// connections, and leave a detached child behind that wrote a file after the run. Each is now refused.
import { promises as fs } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSuite } from "../../src/harness/run-tests.js";
import { createWorkspace, removeWorkspace } from "../../src/harness/workspace.js";
import { makeScratch, makeTask, removeScratch, snapshot, type Scratch } from "../harness/helpers.js";

let s: Scratch;
beforeAll(async () => {
  s = await makeScratch();
});
afterAll(async () => {
  await removeScratch(s);
});

const testFile = (body: string): string =>
  `const { test } = require("node:test");\nconst fs = require("node:fs");\nconst cp = require("node:child_process");\n${body}\n`;

const exists = (p: string): Promise<boolean> => fs.lstat(p).then(() => true, () => false);

describe("issue 13: the test process tree is confined", () => {
  it("a shipped symlink to /etc/passwd cannot be read by the tests", async () => {
    const dir = await makeTask(s.tasks, {
      id: "passwd-link",
      type: "commonjs",
      links: { "data/users": "/etc/passwd" },
      files: {
        "test/leak.test.js": testFile(
          'test("leak", () => { try { console.log("LEAK=" + fs.readFileSync("data/users", "utf8").split("\\n")[0]); } catch (e) { console.log("READ_REFUSED=" + e.code); } });',
        ),
      },
    });
    const ws = await createWorkspace(dir, { tmpRoot: s.runs });
    const r = await runSuite(ws);
    await removeWorkspace(ws);
    expect(r.output).toMatch(/READ_REFUSED=\w+/);
    expect(r.output).not.toContain("LEAK=");
  });

  it("a child process cannot write outside the workspace", async () => {
    const before = await snapshot(s.root);
    const targets = [path.join(s.sentinel, "pwned.txt"), path.join(s.tasks, "pwned.txt"), path.join(s.sentinel, "secret.txt")];
    const script = targets.map((t) => `echo pwned > ${t}`).join("; ");
    const dir = await makeTask(s.tasks, {
      id: "child-writes",
      type: "commonjs",
      files: {
        "test/child.test.js": testFile(
          `test("child", () => { const r = cp.spawnSync("sh", ["-c", ${JSON.stringify(script)}]); console.log("CHILD_RAN=" + r.status); });`,
        ),
      },
    });
    const withTask = await snapshot(s.root);
    const ws = await createWorkspace(dir, { tmpRoot: s.runs });
    const r = await runSuite(ws);
    await removeWorkspace(ws);
    expect(r.output).toMatch(/CHILD_RAN=\d+/);
    for (const t of targets.slice(0, 2)) expect(await exists(t)).toBe(false);
    expect(await fs.readFile(targets[2]!, "utf8")).toBe("TOP SECRET\naaaa\n");
    expect(Object.keys(withTask).length).toBeGreaterThan(Object.keys(before).length);
    expect(await snapshot(s.root)).toEqual(withTask);
  });

  it("a network connection to 127.0.0.1 fails, from the test and from a child", async () => {
    let connections = 0;
    const server = net.createServer((sock) => {
      connections++;
      sock.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const connect = `const s = require("node:net").connect(${port}, "127.0.0.1"); s.on("connect", () => { console.log("CONNECTED"); s.end("hi"); }); s.on("error", (e) => console.log("CONNECT_FAILED=" + e.code));`;
      const dir = await makeTask(s.tasks, {
        id: "net-connect",
        type: "commonjs",
        files: {
          "test/net.test.js": testFile(
            `test("net", async () => { ${connect} await new Promise((r) => { s.on("close", r); }); const c = cp.spawnSync(process.execPath, ["-e", ${JSON.stringify(connect)}], { encoding: "utf8" }); console.log("CHILD:" + c.stdout.trim()); });`,
          ),
        },
      });
      const ws = await createWorkspace(dir, { tmpRoot: s.runs });
      const r = await runSuite(ws);
      await removeWorkspace(ws);
      expect(r.output).toMatch(/^CONNECT_FAILED=\w+/m);
      expect(r.output).toMatch(/CHILD:CONNECT_FAILED=\w+/);
      expect(r.output).not.toContain("CONNECTED");
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it("a detached child that sleeps and then writes a file dies with the run", async () => {
    const late = 'setTimeout(() => require("node:fs").writeFileSync("late.txt", "x"), 1500)';
    const dir = await makeTask(s.tasks, {
      id: "detached-child",
      type: "commonjs",
      files: {
        "test/detach.test.js": testFile(
          `test("detach", () => { const c = cp.spawn(process.execPath, ["-e", ${JSON.stringify(late)}], { detached: true, stdio: "ignore" }); c.unref(); console.log("DETACHED=" + c.pid); });`,
        ),
      },
    });
    const ws = await createWorkspace(dir, { tmpRoot: s.runs });
    const r = await runSuite(ws);
    expect(r.passed).toBe(true);
    expect(r.output).toMatch(/DETACHED=\d+/);
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const appeared = await exists(path.join(ws.root, "late.txt"));
    await removeWorkspace(ws);
    expect(appeared).toBe(false);
  });
});
