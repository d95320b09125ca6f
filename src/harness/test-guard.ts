// Owns: what keeps a test's own assertions out of reach of the code it tests: the Node flags and the preload
// module every test process loads before any module of the project (the JavaScript intrinsics frozen, the
// global object's bindings of them locked, `node:assert`, `node:assert/strict` and `node:test` frozen, the
// runner's `Test` objects hidden from async_hooks, and the signed reporter attached).

import { SIGNED_REPORTER } from "./signed-report.js";

/**
 * The preload, run by `--import` in each test file's process (run-tests.ts) before the test file and so before
 * any task module. Task code shares the test's process, so whatever
 * the test judges with must be fixed before that code runs:
 * - `node:assert` (the function and every function, class and prototype reachable from it; `assert.strict`
 *   and `node:assert/strict` are among them) and `node:test` are frozen, so `assert.equal = …`,
 *   `Object.defineProperty(assert, …)`, a patched `AssertionError.prototype` and a `require("node:test")`
 *   rewrite pushed into the ES module bindings by `syncBuiltinESMExports` all fail; the ES module namespaces
 *   of built-ins cannot be redefined anyway.
 * - the JavaScript intrinsics a test computes with (`JSON`, `Math`, `Reflect`, `Object`, `Array`, `String`,
 *   `Promise`, `Map`, the typed arrays, … with their prototypes) are frozen, so a patched `JSON.stringify` or
 *   `Promise.prototype.then` fails. The Error family is left alone: Node's test reporting writes to error
 *   objects (`--frozen-intrinsics`, which freezes it too, turned every failure's message into `{}`). Freezing a
 *   prototype would break ordinary code that overrides an inherited method by assignment (`Foo.prototype.
 *   toString = …`, the "override mistake"), so the usual overridable methods become accessors whose setter
 *   defines the property on the object assigned to, as SES's taming does (`constructor` too, on
 *   `Object.prototype` only: elsewhere `util.inspect` reads it as a data property to name a value's class).
 * - the global object's data properties become read-only and non-configurable, so a test's
 *   `JSON.stringify(x)` cannot be handed another `JSON`. Node's lazily defined Web globals (`TextEncoder`,
 *   `crypto`, the streams, …) are accessors and stay as they are: resolving them all cost about 0.1 s per
 *   process, and a lazy getter cannot be locked before it has run.
 * - the signed reporter (signed-report.ts) is imported first, so it has read its key before any task module
 *   exists; a root-level no-op `after` hook makes node set up its reporters now, and the guard waits until the
 *   reporter is attached to node's own test stream (a later call of it is tampering).
 * - async_hooks cannot hand out the runner's `Test` objects (through which a failure could be turned into a
 *   pass or forged results pushed into the reporter's stream): `createHook`'s `init` and
 *   `executionAsyncResource` see a plain stand-in object for each of them, the same one each time.
 *   `node:inspector` and `process.binding` are refused by Node's permission model (confinementFlags).
 * Assignments that fail throw in the task's module (ES modules are strict), which fails its tests.
 * A data: URL, so no file of the run (writable by its code) holds it.
 */
const GUARD_SOURCE = `import { attachedToRunner } from ${JSON.stringify(SIGNED_REPORTER)};
import assert from "node:assert";
import hooks from "node:async_hooks";
import { syncBuiltinESMExports } from "node:module";
import { after } from "node:test";
import strict from "node:assert/strict";
import test from "node:test";
const INTRINSICS = ["Object", "Function", "Array", "Number", "Boolean", "String", "Symbol", "BigInt", "Date", "RegExp",
  "Promise", "JSON", "Math", "Reflect", "Proxy", "Atomics", "Intl", "Map", "Set", "WeakMap", "WeakSet", "WeakRef",
  "ArrayBuffer", "SharedArrayBuffer", "DataView", "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array",
  "Uint16Array", "Int32Array", "Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"];
const OVERRIDABLE = ["toString", "toLocaleString", "valueOf", "toJSON", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable"];
const tame = (proto) => {
  for (const k of proto === Object.prototype ? ["constructor", ...OVERRIDABLE] : OVERRIDABLE) {
    const d = Object.getOwnPropertyDescriptor(proto, k);
    if (!d || !("value" in d) || !d.configurable) continue;
    const value = d.value;
    Object.defineProperty(proto, k, {
      get() { return value; },
      set(v) {
        if (this === proto) throw new TypeError("Cannot assign to read only property '" + k + "' of a frozen built-in prototype");
        Object.defineProperty(this, k, { value: v, writable: true, enumerable: true, configurable: true });
      },
      enumerable: d.enumerable,
      configurable: false,
    });
  }
};
const seen = new Set();
const freeze = (o, taming) => {
  if ((typeof o !== "object" && typeof o !== "function") || o === null || seen.has(o)) return;
  seen.add(o);
  if (taming && typeof o === "object") tame(o);
  for (const k of Reflect.ownKeys(o)) {
    const d = Object.getOwnPropertyDescriptor(o, k);
    if (d && "value" in d) freeze(d.value, taming);
  }
  Object.freeze(o);
};
freeze(assert, false);
freeze(strict, false);
freeze(test, false);
const tests = new WeakSet();
const realCreateHook = hooks.createHook, realResource = hooks.executionAsyncResource;
realCreateHook({ init(id, type, trigger, resource) { if (type === "Test") tests.add(resource); } }).enable();
const standIns = new WeakMap();
const shown = (r) => {
  if (!tests.has(r)) return r;
  if (!standIns.has(r)) standIns.set(r, {});
  return standIns.get(r);
};
hooks.createHook = function createHook(callbacks) {
  const init = callbacks !== null && typeof callbacks === "object" ? callbacks.init : undefined;
  if (typeof init !== "function") return realCreateHook(callbacks);
  return realCreateHook({ ...callbacks, init(id, type, trigger, resource) { return Reflect.apply(init, this, [id, type, trigger, shown(resource)]); } });
};
hooks.executionAsyncResource = function executionAsyncResource() { return shown(realResource()); };
syncBuiltinESMExports();
Object.freeze(hooks);
after(() => {});
let timer;
await Promise.race([attachedToRunner, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error("qtc: the signed test reporter did not attach")), 10000); })]);
clearTimeout(timer);
for (const k of INTRINSICS) if (globalThis[k] !== undefined) freeze(globalThis[k], true);
for (const k of Reflect.ownKeys(globalThis)) {
  const d = Object.getOwnPropertyDescriptor(globalThis, k);
  if (d && "value" in d && d.configurable) Object.defineProperty(globalThis, k, { value: d.value, writable: false, enumerable: d.enumerable, configurable: false });
}
`;

/** The preload as a module URL for `--import`. */
export const TEST_GUARD = `data:text/javascript,${encodeURIComponent(GUARD_SOURCE)}`;

/** The Node flags that load the guard in each test file's process. */
export function guardFlags(): string[] {
  return [`--import=${TEST_GUARD}`];
}
