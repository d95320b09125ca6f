// Owns: what keeps a test's own assertions out of reach of the code it tests: the Node flags and the preload
// module every test process loads before any module of the project (frozen JavaScript intrinsics, the global
// object's bindings of them locked, and `node:assert`, `node:assert/strict` and `node:test` frozen).

/**
 * The preload, run by `--import` in the runner and in every per-file process it starts (they inherit the
 * flag) before the test file and so before any task module. Task code shares the test's process, so whatever
 * the test judges with must be fixed before that code runs:
 * - `node:assert` (the function and every function, class and prototype reachable from it; `assert.strict`
 *   and `node:assert/strict` are among them) and `node:test` are frozen, so `assert.equal = …`,
 *   `Object.defineProperty(assert, …)`, a patched `AssertionError.prototype` and a `require("node:test")`
 *   rewrite pushed into the ES module bindings by `syncBuiltinESMExports` all fail; the ES module namespaces
 *   of built-ins cannot be redefined anyway.
 * - the global object's data properties (`JSON`, `Object`, `Promise`, …) become read-only and
 *   non-configurable, after Node's lazily defined globals (`TextEncoder`, `structuredClone`, …) are resolved to
 *   values, so a test's `JSON.stringify(x)` cannot be handed another `JSON`. The intrinsics themselves are
 *   frozen by `--frozen-intrinsics` (a patched `Promise.prototype.then` or `JSON.stringify` fails).
 * Assignments that fail throw in the task's module (ES modules are strict), which fails its tests.
 * A data: URL, so no file of the run (writable by its code) holds it.
 */
const GUARD_SOURCE = `import assert from "node:assert";
import strict from "node:assert/strict";
import test from "node:test";
const seen = new Set();
const freeze = (o) => {
  if ((typeof o !== "object" && typeof o !== "function") || o === null || seen.has(o)) return;
  seen.add(o);
  for (const k of Reflect.ownKeys(o)) {
    const d = Object.getOwnPropertyDescriptor(o, k);
    if (d && "value" in d) freeze(d.value);
  }
  Object.freeze(o);
};
freeze(assert);
freeze(strict);
freeze(test);
for (const k of Reflect.ownKeys(globalThis)) {
  let d = Object.getOwnPropertyDescriptor(globalThis, k);
  if (d && !("value" in d) && d.configurable) {
    try { void globalThis[k]; } catch {}
    d = Object.getOwnPropertyDescriptor(globalThis, k);
  }
  if (d && "value" in d && d.configurable) Object.defineProperty(globalThis, k, { value: d.value, writable: false, enumerable: d.enumerable, configurable: false });
}
`;

/** The preload as a module URL for `--import`. */
export const TEST_GUARD = `data:text/javascript,${encodeURIComponent(GUARD_SOURCE)}`;

/**
 * The Node flags that load the guard in the test runner and, inherited, in each test file's process
 * (`--no-warnings`: the experimental-feature warning of `--frozen-intrinsics` is not the tests' output).
 */
export function guardFlags(): string[] {
  return ["--no-warnings", "--frozen-intrinsics", `--import=${TEST_GUARD}`];
}
