// Issue 30, item 6: the verdict could still be faked in-process. Task source shares the test's process, so a
// source that rewrote `node:assert` (or an intrinsic the test computes with) before the test
// ran made every assertion pass with the bug unfixed. Test processes now load a guard before any task module:
// node:assert and node:test frozen, the intrinsics frozen, the global bindings of them locked.
import { promises as fs } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADD_TASK, makeScratch, makeTask, removeScratch, runWritingSource, type Scratch } from "../harness/helpers.js";

let s: Scratch;
const tasks: Record<string, string> = {};
const testOf = (imports: string, body: string): string =>
  `import { test } from "node:test";\n${imports}\nimport { add } from "../src/add.js";\n\ntest("adds", async () => {\n  ${body}\n});\n`;

beforeAll(async () => {
  s = await makeScratch();
  tasks.equal = await makeTask(s.tasks, ADD_TASK);
  tasks.deep = await makeTask(s.tasks, {
    ...ADD_TASK,
    id: "deep-task",
    files: { ...ADD_TASK.files, "test/add.test.js": testOf('import assert from "node:assert";', "assert.deepStrictEqual(add(2, 3), 5);") },
  });
  tasks.named = await makeTask(s.tasks, {
    ...ADD_TASK,
    id: "named-task",
    files: { ...ADD_TASK.files, "test/add.test.js": testOf('import { equal } from "node:assert/strict";', "equal(add(2, 3), 5);") },
  });
  tasks.json = await makeTask(s.tasks, {
    ...ADD_TASK,
    id: "json-task",
    files: { ...ADD_TASK.files, "test/add.test.js": testOf('import assert from "node:assert/strict";', 'assert.equal(JSON.stringify({ sum: add(2, 3) }), \'{"sum":5}\');') },
  });
});
afterAll(async () => {
  await removeScratch(s);
});

const BUGGY = "export function add(a, b) {\n  return a - b;\n}\n";
const FIXED = "export function add(a, b) {\n  return a + b;\n}\n";
const REQUIRE = 'import { createRequire, syncBuiltinESMExports } from "node:module";\nconst require = createRequire(import.meta.url);\n';

/** Each tampering, prepended to the unfixed source; on f391aaf each made the run count as solved. */
const TAMPERINGS: Array<[string, keyof typeof tasks, string]> = [
  ["assert.strict.equal replaced", "equal", 'import assert from "node:assert";\nassert.strict.equal = () => {};\n'],
  ["node:assert/strict's own export replaced", "equal", 'import strict from "node:assert/strict";\nstrict.equal = () => {};\n'],
  ["assert.deepStrictEqual replaced", "deep", 'import assert from "node:assert";\nassert.deepStrictEqual = () => {};\n'],
  ["Object.defineProperty on the default export", "equal", 'import strict from "node:assert/strict";\nObject.defineProperty(strict, "equal", { value: () => {} });\n'],
  [
    "a prototype patch: the own method deleted, a harmless one on a new prototype",
    "equal",
    'import strict from "node:assert/strict";\ndelete strict.equal;\nObject.setPrototypeOf(strict, { equal() {} });\n',
  ],
  [
    "the module namespace rewritten through require and syncBuiltinESMExports",
    "named",
    `${REQUIRE}require("node:assert/strict").equal = () => {};\nsyncBuiltinESMExports();\n`,
  ],
  ["an intrinsic the test computes with (JSON.stringify)", "json", "JSON.stringify = () => '{\"sum\":5}';\n"],
  ["the global JSON binding replaced", "json", "globalThis.JSON = { stringify: () => '{\"sum\":5}' };\n"],
];

const judged = (task: string, source: string) => runWritingSource(task, source, s.runs);

describe("issue 30: task code cannot reach the assertions it is judged by", () => {
  for (const [what, task, tamper] of TAMPERINGS) {
    it(`${what}: the unfixed source does not pass`, async () => {
      const run = await judged(tasks[task]!, `${tamper}${BUGGY}`);
      expect(run.testsPassed).toBe(false);
      expect(run.finalTests.output).toMatch(/Verdict: failed/);
    });
  }

  it("an unfixed source without tampering fails with its assertion's message shown", async () => {
    const run = await judged(tasks.equal!, BUGGY);
    expect(run.testsPassed).toBe(false);
    expect(run.finalTests.output).toContain("Expected values to be strictly equal");
  });

  it("a real fix passes in every task, next to ordinary code that overrides inherited methods by assignment", async () => {
    const ordinary = [
      'class AddError extends Error {\n  constructor(m) { super(m); this.name = "AddError"; }\n}',
      'const o = {};\no.toString = () => "o";',
      "function P() {}\nP.prototype = { m() { return 1; } };\nP.prototype.constructor = P;\nP.prototype.toString = function () { return \"P\"; };",
      "export { AddError, o, P };\n",
    ].join("\n");
    for (const task of Object.values(tasks)) {
      const run = await judged(task, `${ordinary}${FIXED}`);
      expect(run.testsPassed).toBe(true);
      expect(run.finalTests.tests).toBe(1);
    }
    expect(await fs.readdir(s.runs)).toEqual([]);
  });
});
