// Issue 18, item 6: the bench's progress and final table, captured from a pseudo-terminal (util-linux `script`)
// 80 and 200 columns wide: no line is wider than the terminal, model loading is its own step, every finished run
// gets a line, and the table switches to a compact layout when the box table would not fit. Runs dist/ (npm run
// build) with a replay model, so it takes seconds.

import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProgress, ProgressState } from "../../src/bench/progress.js";
import type { BenchEvent } from "../../src/bench/run-bench.js";
import { duration, wrap } from "../../src/bench/format.js";
import { ADD_FIX, call, makeTasks, makeTmp } from "./helpers.js";

const bin = fileURLToPath(new URL("../../bin/qtc.js", import.meta.url));
let root: string;
let tasks: string;
let replay: string;

beforeAll(async () => {
  root = await makeTmp();
  tasks = await makeTasks(path.join(root, "tasks"));
  // A name as long as a real model's (qtc-synthetic-tiny (synthetic)) keeps the box table about 170 columns wide.
  replay = path.join(root, "replay-fixes-add.json");
  await fs.writeFile(replay, JSON.stringify([call("write_file", { path: "src/add.js", content: ADD_FIX }), "Fixed."]));
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** What a terminal `cols` wide showed: each piece of output drawn from column 0 (lines, and \r redraws). */
function benchOnTerminal(cols: number, out: string): { text: string; pieces: string[] } {
  const cmd = [process.execPath, bin, "bench", "--model", `replay:${replay}`, "--constrained", "--tasks", path.join(tasks, "add-task"), "--seeds", "2", "--out", out];
  const r = spawnSync("script", ["-q", "-e", "-c", `stty cols ${cols} rows 40; ${cmd.map(quote).join(" ")}`, "/dev/null"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 60_000,
  });
  expect(r.status, r.stderr).toBe(0);
  // A cursor move to a column (CSI G) redraws from the left edge like \r; other escape sequences take no room.
  const text = r.stdout.replace(/\x1b\[[0-9]*G/g, "\r").replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
  return { text, pieces: text.split(/\r?\n/).flatMap((line) => line.split("\r")) };
}

describe("qtc bench on a pseudo-terminal", () => {
  for (const cols of [80, 200]) {
    it(`${cols} columns: no line wider than the terminal`, { timeout: 60_000 }, () => {
      const { text, pieces } = benchOnTerminal(cols, path.join(root, `out-${cols}`));
      const wide = pieces.filter((p) => [...p].length > cols);
      expect(wide).toEqual([]);
      expect(text).toMatch(/loaded in \d+s/);
      for (const n of [1, 2, 3, 4]) expect(text).toContain(`[${n}/4] replay:`);
      expect(text).toContain("validity");
      expect(text).toContain("100.0% (2/2)");
      // The box table is 170 columns wide: it fits at 200, and gives way to the compact layout at 80.
      expect(text.includes("┌")).toBe(cols === 200);
    });
  }
});

describe("the ETA", () => {
  const record = (done: number) =>
    ({ type: "run", planned: 4, done, record: { timings: { totalMs: 1 } } }) as unknown as BenchEvent;
  const running: BenchEvent = { type: "running", model: "m", mode: "constrained", task: "t", seed: 0, planned: 4, done: 0 };

  it("comes from finished runs only: none while the model loads, then their mean times the runs left", () => {
    let now = 0;
    const s = new ProgressState(() => now);
    s.onEvent({ type: "start", dir: "d", planned: 4, done: 0, config: {} as never });
    s.onEvent({ type: "loading", model: "m", mode: "constrained" });
    now = 300_000; // five minutes of loading count for nothing
    expect(s.etaMs()).toBeNull();
    expect(s.status()).toContain("ETA after the first run");
    expect(s.status()).toContain("loading m…");
    s.onEvent(running);
    now += 10_000;
    s.onEvent(record(1));
    expect(s.etaMs()).toBe(30_000);
    s.onEvent(running);
    now += 4_000;
    expect(s.etaMs()).toBe(26_000); // counts down while a run goes
  });

  it("durations never read 6m60s", () => {
    expect([duration(419_600), duration(59_999), duration(3_600_000), duration(0)]).toEqual(["7m00s", "1m00s", "1h00m", "0s"]);
  });

  it("a status line on a narrow terminal is cut to fit, one column short of the edge", () => {
    let written = "";
    const stream = { isTTY: true, columns: 40, write: (s: string) => ((written += s), true) } as unknown as NodeJS.WriteStream;
    const p = createProgress(stream, { refreshMs: 0 });
    p.onEvent({ type: "start", dir: "/a/long/output/folder/for/this/bench/run", planned: 4, done: 0, config: {} as never });
    p.onEvent({ type: "loading", model: "a-model-with-a-very-long-name-indeed", mode: "constrained" });
    p.stop();
    const pieces = written.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "").split(/\n|\r/);
    expect(pieces.filter((l) => [...l].length > 40)).toEqual([]);
    expect(pieces.some((l) => l.startsWith("bench 0/4 runs") && l.endsWith("…") && [...l].length === 39)).toBe(true);
  });

  it("wrap keeps every line within the width", () => {
    const lines = wrap("a-very-long-word-that-cannot-fit and some more words", 10, "  ");
    expect(lines.every((l) => l.length <= 10)).toBe(true);
    expect(lines.join(" ").replace(/\s+/g, "")).toBe("a-very-long-word-that-cannot-fitandsomemorewords");
  });
});
