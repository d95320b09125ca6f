// Issue 40: CI installs Node 24 into the clone's .cache/node; when the clone lies under /tmp, the sandbox's private
// /tmp (a tmpfs mounted over it) hid that Node, so its self-check failed and every harness run was refused
// (`sandbox_unavailable`: "prlimit: failed to execute …/.cache/node/24/…/bin/node"). A Node under /tmp must start
// inside the sandbox like one under /usr.
import { execFile } from "node:child_process";
import { promises as fs, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mountsAfterTmp, nodePrefixOf } from "../../src/harness/os-sandbox.js";

const run = promisify(execFile);
const SANDBOX_MODULE = path.resolve("dist/harness/os-sandbox.js");

describe("issue 40: a Node installed under /tmp runs inside the sandbox", () => {
  let dir = "";
  let node = "";
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join("/tmp", "qtc-node-"));
    node = path.join(dir, "node-linux-x64", "bin", "node");
    await fs.mkdir(path.dirname(node), { recursive: true });
    await fs.copyFile(realpathSync(process.execPath), node);
    await fs.chmod(node, 0o755);
  });
  afterAll(async () => {
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it("binds that Node's prefix again after the private /tmp", () => {
    const prefix = nodePrefixOf(node);
    expect(prefix).toBe(path.join(realpathSync(dir), "node-linux-x64"));
    expect(mountsAfterTmp(prefix)).toEqual(["--ro-bind", prefix, prefix]);
    expect(mountsAfterTmp("/usr")).toEqual([]);
  });

  it("passes the sandbox's self-check when the harness itself runs on it", async () => {
    const script = `const m = await import(${JSON.stringify(SANDBOX_MODULE)}); const s = await m.resolveSandbox("bwrap"); console.log(s.kind);`;
    const { stdout } = await run(node, ["--input-type=module", "-e", script], { cwd: os.tmpdir(), timeout: 60_000 });
    expect(stdout.trim()).toBe("bwrap");
  });
});
