// Issue 30, item 6 (the rest): the verdict could be forged from the task's own source. `node --test` read each
// test file's results from that file's stdout as v8-serialized frames, so a source that wrote frames claiming
// its tests passed and then exited early was judged solved with the bug unfixed; a source that reached the
// runner's `Test` objects through async_hooks could turn a failure into a pass. Each test file now runs in a
// `node` of its own whose reporter, loaded by the guard before any task module, signs its results with a key
// handed over on stdin; the verdict counts only signed lines, in sequence, closed by a signed end line that
// says the test file was loaded through.
import { promises as fs } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADD_TASK, makeScratch, makeTask, removeScratch, runWritingSource, type Scratch } from "../harness/helpers.js";

let s: Scratch;
let addTask: string;
beforeAll(async () => {
  s = await makeScratch();
  addTask = await makeTask(s.tasks, ADD_TASK);
});
afterAll(async () => {
  await removeScratch(s);
});

const BUGGY = "export function add(a, b) {\n  return a - b;\n}\n";
const FIXED = "export function add(a, b) {\n  return a + b;\n}\n";

/** The test file's absolute path, as the runner names it, from the source's own location. */
const TEST_FILE = 'const testFile = new URL("../test/add.test.js", import.meta.url).pathname;\n';

/** Frames in the format of node's v8-serializer reporter (what `node --test` reads from a test file's stdout). */
const V8_FRAME = `import v8 from "node:v8";
import fs from "node:fs";
const frame = (item) => {
  const s = new v8.DefaultSerializer();
  s.writeHeader();
  const h = s.releaseBuffer().length;
  s.writeHeader();
  s.writeRawBytes(Buffer.alloc(4));
  s.writeHeader();
  s.writeValue(item);
  const m = s.releaseBuffer();
  const n = m.length - (4 + h);
  m.set([(n >> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255], h);
  return m;
};
${TEST_FILE}`;

const pass = (n: number) =>
  `{ type: "test:pass", data: { name: "adds", nesting: 0, testNumber: ${n}, details: { duration_ms: 1 }, file: testFile, line: 5, column: 1 } }`;

/** A line that looks like a report line on each descriptor a reporter could write to. */
const LINES =
  `import fs from "node:fs";\n${TEST_FILE}` +
  'const line = (o) => "qtc-test-report " + JSON.stringify(o) + " " + "0".repeat(64) + "\\n";\n' +
  "for (const fd of [1, 2, 3]) {\n" +
  '  try { fs.writeSync(fd, line({ seq: 0, ok: true, name: "adds", nesting: 0, suite: false, skip: false, todo: false, cancelled: false })); fs.writeSync(fd, line({ seq: 1, end: true, loaded: true, tampered: false })); } catch {}\n' +
  "}\nprocess.exit(0);\n";

/** Which async_hooks route reaches the runner's Test objects. */
const TEST_OBJECTS =
  'import { createHook } from "node:async_hooks";\n' +
  "const patched = new Set();\n" +
  "createHook({ init(id, type, trigger, resource) {\n" +
  '  const proto = resource && Object.getPrototypeOf(resource);\n' +
  '  if (proto && typeof proto.fail === "function" && "passed" in resource && !patched.has(proto)) { patched.add(proto); proto.fail = function () { this.passed = true; }; }\n' +
  "} }).enable();\n";

const CURRENT_TEST =
  'import { executionAsyncResource } from "node:async_hooks";\n' +
  "export function add(a, b) {\n" +
  "  const t = executionAsyncResource();\n" +
  '  if (t && typeof t.fail === "function") Object.getPrototypeOf(t).fail = function () { this.passed = true; };\n' +
  "  return a - b;\n}\n";

/** Tests of the source's own under the test's name; once they passed, the runner's end forged, then an exit. */
const OWN_TESTS =
  'import { test } from "node:test";\n' +
  'test("adds", () => {});\n' +
  "await new Promise((r) => setTimeout(r, 200));\n" +
  'process.emit("beforeExit", 0);\n' +
  "await new Promise((r) => setTimeout(r, 200));\n" +
  "process.exit(0);\n";

/** The same, the end forged from inside the source's own test, once the test file's tests exist. */
const OWN_TESTS_LATE =
  'import { test } from "node:test";\n' +
  'test("adds", () => { process.emit("beforeExit", 0); });\n' +
  "setTimeout(() => process.exit(0), 300);\n";

/** The guard's reporter and entry, imported by their data: URLs (the command line shows them) and driven by hand. */
const REPORTER_BY_HAND =
  'const urls = process.execArgv.flatMap((a) => a.match(/data:[^ ]*/g) ?? []).concat(process.argv.flatMap((a) => a.match(/data:text\\/javascript,[^ "\']*/g) ?? []));\n' +
  "for (const url of urls) {\n" +
  "  let m;\n  try { m = await import(url); } catch { continue; }\n" +
  '  for (const f of Object.values(m)) { if (typeof f !== "function") continue; try { const out = f((async function* () { yield { type: "test:pass", data: { name: "adds", nesting: 0, details: {} } }; })()); if (out && out[Symbol.asyncIterator]) for await (const x of out) {} else if (typeof out === "function") out(true); } catch {} }\n' +
  "}\nprocess.exit(0);\n";

const FORGERIES: Array<[string, string]> = [
  ["v8 frames on stdout claiming the test passed, then exit 0", `${V8_FRAME}fs.writeSync(1, frame(${pass(1)}));\nprocess.exit(0);\n`],
  ["a forged pass, then an exit past every exit handler (process.reallyExit)", `${V8_FRAME}fs.writeSync(1, frame(${pass(1)}));\nprocess.reallyExit(0);\n`],
  ["report lines of the reporter's shape on stdout, stderr and fd 3, then exit", LINES],
  ["the runner's Test objects patched through an async hook", TEST_OBJECTS],
  ["the current Test object patched through executionAsyncResource", CURRENT_TEST],
  ["the source's own passing test under the same name, then a forged beforeExit and an exit", OWN_TESTS],
  ["the source's own passing test ending the runner from inside, once the test file's tests exist", OWN_TESTS_LATE],
  ["the guard's reporter and entry called by the source", REPORTER_BY_HAND],
];

const judged = (source: string) => runWritingSource(addTask, source, s.runs);

describe("issue 30: the verdict's results cannot be forged by the task's source", () => {
  for (const [what, forgery] of FORGERIES) {
    it(`${what}: the unfixed source does not pass`, async () => {
      const run = await judged(`${forgery}${forgery.includes("export function add") ? "" : BUGGY}`);
      expect(run.testsPassed).toBe(false);
      expect(run.finalTests.output).toMatch(/Verdict: failed/);
    });
  }

  it("a real fix passes, its one test counted", async () => {
    const run = await judged(FIXED);
    expect(run.testsPassed).toBe(true);
    expect(run.finalTests.tests).toBe(1);
    expect(await fs.readdir(s.runs)).toEqual([]);
  });
});
