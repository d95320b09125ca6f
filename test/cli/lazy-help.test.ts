// `qtc --help` loads no command's module: bin/qtc.js registers each command by name and summary, and loads the
// module of the command that runs only (node-llama-cpp, fastify and the grammar compiler take seconds to
// import). The list it shows is the full program's: same commands, same order, each summary its description.
// How fast it answers is measured by `npm run bench:cli`, not here (tests never assert wall time).

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/cli.js";
import { COMMAND_LIST } from "../../src/cli/commands/list.js";
import { commandNamed } from "../../src/cli/main.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "qtc-lazy-help-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The modules `node bin/qtc.js ...args` loads, as URLs. Needs dist/ built. */
function modulesLoadedBy(args: string[], name: string): { urls: string[]; stdout: string; status: number | null } {
  const log = join(root, `${name}.log`);
  const hooks = join(repo, "test", "cli", "fixtures", "register-import-log.mjs");
  const r = spawnSync(process.execPath, ["--import", hooks, join(repo, "bin", "qtc.js"), ...args], {
    encoding: "utf8",
    env: { ...process.env, QTC_IMPORT_LOG: log },
    timeout: 60_000,
  });
  return { urls: readFileSync(log, "utf8").split("\n").filter(Boolean), stdout: r.stdout, status: r.status };
}

const HEAVY = ["node-llama-cpp", "fastify", "ajv", "echarts", "/dist/grammar/", "/dist/runtime/", "/dist/server/"];

describe("qtc --help", () => {
  it("lists every command and loads none of their modules", () => {
    const { urls, stdout, status } = modulesLoadedBy(["--help"], "help");
    expect(status).toBe(0);
    for (const entry of COMMAND_LIST) expect(stdout).toMatch(new RegExp(`^  ${entry.name} `, "m"));
    expect(urls.some((u) => u.endsWith("/dist/cli/main.js"))).toBe(true);
    expect(urls.filter((u) => HEAVY.some((h) => u.includes(h)))).toEqual([]);
    expect(urls.filter((u) => /\/dist\/cli\/commands\/(?!list\.js)/.test(u))).toEqual([]);
  }, 90_000);

  it("qtc models loads its own command's module and not the others'", () => {
    const { urls, status } = modulesLoadedBy(["models", "--json"], "models");
    expect(status).toBe(0);
    const commands = urls.filter((u) => u.includes("/dist/cli/commands/")).map((u) => u.replace(/^.*\/dist\/cli\/commands\//, ""));
    expect(commands.sort()).toEqual(["list.js", "models.js"]);
  }, 90_000);
});

describe("the lazy list is the full program's", () => {
  it("same commands in the same order, each summary the command's description", () => {
    const full = buildProgram().commands.map((c) => [c.name(), c.description()]);
    expect(COMMAND_LIST.map((e) => [e.name, e.summary])).toEqual(full);
  });

  it("names the command argv runs", () => {
    expect(commandNamed(["node", "qtc", "--help"])).toBeUndefined();
    expect(commandNamed(["node", "qtc", "bench", "--tasks", "5"])).toBe("bench");
    expect(commandNamed(["node", "qtc", "help", "serve"])).toBe("serve");
    expect(commandNamed(["node", "qtc", "-V"])).toBeUndefined();
  });
});
