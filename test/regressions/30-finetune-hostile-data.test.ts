// Issue 30, item 10: hostile fine-tuning input. `qtc finetune` ended in "unexpected failure" (exit 1) for a
// line whose tool arguments are not JSON and for a null message, and a 70 MB content line reached the driver,
// which misread it as a "bad piece header"; `qtc data` followed a symlinked solution/ folder out of the tasks
// folder, so a file from elsewhere became training data. Each is now one line naming the line or the link,
// exit 2, before any training starts.
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { ADD_TASK, makeScratch, makeTask, removeScratch, type Scratch } from "../harness/helpers.js";

let s: Scratch;
beforeAll(async () => {
  s = await makeScratch();
});
afterAll(async () => {
  await removeScratch(s);
});

const TOOLS = [{ type: "function", function: { name: "read_file", description: "Read a file.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } }];
const GOOD = { messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }], tools: TOOLS };
const withCall = (args: unknown) => ({
  messages: [{ role: "user", content: "read a.js" }, { role: "assistant", content: "", tool_calls: [{ id: "c0", type: "function", function: { name: "read_file", arguments: args } }] }],
  tools: TOOLS,
});

/** Runs `qtc finetune` on JSONL whose second line is `bad`; training never starts (the input is refused first). */
async function finetuneOn(name: string, bad: string) {
  const data = path.join(s.root, `${name}.jsonl`);
  await fs.writeFile(data, `${JSON.stringify(GOOD)}\n${bad}\n`);
  const r = await runCli(["finetune", "--model", "synthetic:tiny", "--data", data, "--out", path.join(s.root, `${name}.gguf`)]);
  return { ...r, data };
}

const oneLine = (stderr: string) => {
  expect(stderr.trim().split("\n")).toHaveLength(1);
  expect(stderr).not.toMatch(/unexpected failure|\n\s+at /);
};

describe("issue 30: qtc finetune refuses hostile JSONL line by line", () => {
  it("tool arguments that are not JSON: exit 2, one line naming the line and the field", async () => {
    const r = await finetuneOn("args", JSON.stringify(withCall("{not json")));
    expect(r.code).toBe(2);
    oneLine(r.stderr);
    expect(r.stderr).toContain(`${r.data}:2: messages[1].tool_calls[0].function.arguments is not JSON`);
  });

  it("arguments that are JSON but not an object, a null message, a message that is a number", async () => {
    for (const [bad, want] of [
      [JSON.stringify(withCall("[1,2]")), ":2: messages[1].tool_calls[0].function.arguments is not a JSON object"],
      [JSON.stringify({ messages: [null, { role: "assistant", content: "x" }], tools: TOOLS }), ":2: messages[0] is null, not a message object"],
      [JSON.stringify({ messages: [{ role: "user", content: "x" }, 7], tools: TOOLS }), ":2: messages[1] is number, not a message object"],
      ["null", ":2: is not a JSON object"],
    ] as const) {
      const r = await finetuneOn("bad", bad);
      expect(r.code).toBe(2);
      oneLine(r.stderr);
      expect(r.stderr).toContain(want);
    }
  });

  it("a 70 MB content line: refused by its size, naming the line, before it is parsed or handed to the trainer", async () => {
    const big = JSON.stringify({ messages: [{ role: "user", content: "x".repeat(70_000_000) }, { role: "assistant", content: "ok" }], tools: TOOLS });
    const r = await finetuneOn("big", big);
    expect(r.code).toBe(2);
    oneLine(r.stderr);
    expect(r.stderr).toContain(`${r.data}:2 is 66.8 MiB; a fine-tuning line holds at most 16.0 MiB`);
    expect(r.stderr).not.toContain("bad piece header");
  });
});

describe("issue 30: qtc data reads a solution only from inside its task folder", () => {
  const outside = async (name: string) => {
    const dir = path.join(s.root, name);
    await fs.mkdir(path.join(dir, "src"), { recursive: true });
    await fs.writeFile(path.join(dir, "src", "add.js"), "// SECRET FROM OUTSIDE THE TASKS FOLDER\n");
    return dir;
  };
  const data = async (tasks: string, out: string) => {
    const r = await runCli(["data", "--tasks", tasks, "--out", out]);
    const train = await fs.readFile(path.join(out, "train.jsonl"), "utf8").catch(() => "");
    expect(train).not.toContain("SECRET");
    return r;
  };

  it("a solution/ that is a symlink out of the task folder: exit 2, one line naming it, no data written", async () => {
    const tasks = path.join(s.root, "tasks-linked-dir");
    const { solution: _, ...spec } = ADD_TASK;
    await makeTask(tasks, { ...spec, links: { solution: await outside("elsewhere-dir") } });
    const r = await data(tasks, path.join(s.root, "out-dir"));
    expect(r.code).toBe(2);
    oneLine(r.stderr);
    expect(r.stderr).toContain(`${path.join(tasks, "add-task", "solution")} is a symlink that leads out of the task folder`);
  });

  it("a file in solution/ that links out of the task folder: refused the same way", async () => {
    const tasks = path.join(s.root, "tasks-linked-file");
    const away = await outside("elsewhere-file");
    await makeTask(tasks, { ...ADD_TASK, solution: {}, links: { "solution/src/add.js": path.join(away, "src", "add.js") } });
    const r = await data(tasks, path.join(s.root, "out-file"));
    expect(r.code).toBe(2);
    oneLine(r.stderr);
    expect(r.stderr).toContain("solution/src/add.js is a symlink that leads out of the task folder");
  });

  it("a task whose solution stays inside (a link to another file of the task included) still makes its demonstration", async () => {
    const tasks = path.join(s.root, "tasks-inside");
    const dir = await makeTask(tasks, ADD_TASK);
    await fs.writeFile(path.join(dir, "fixed-add.js"), "export function add(a, b) {\n  return a + b;\n}\n");
    await fs.symlink(path.join(dir, "fixed-add.js"), path.join(dir, "solution", "src", "also.js"));
    const out = path.join(s.root, "out-inside");
    const r = await data(tasks, out);
    expect(r.code).toBe(0);
    const train = await fs.readFile(path.join(out, "train.jsonl"), "utf8");
    expect(train).toContain("return a + b;");
    expect(train).toContain("src/also.js");
  });
});
