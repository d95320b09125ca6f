// Noticed in session 34 (issue 50's work): names from untrusted text were looked up as plain objects' properties.
// - The uniqueItems guard looked a member's key (the model's text) up among its plan's listed members:
//   `constructor`, `toString` or `__proto__` found Object.prototype's members instead of none, the guard took a
//   function for a list of shapes and threw (TypeError) while feeding the call's text. A schema member listed as
//   `__proto__` was lost the same way.
// - A client's `$ref` was resolved with `in`: `#/__proto__` compiled as the empty schema (any value) and
//   `#/constructor` failed as "a schema must be an object or a boolean, got function".
// Now both look at own members only.
import { describe, expect, test } from "vitest";
import { compileSchema, compileToolGrammar } from "../../src/grammar/index.js";
import { normalizeTools } from "../../src/tools/index.js";
import { shapesAtKey } from "../../src/grammar/unique-plan.js";
import { KeyGuard, KeyVocab } from "../../src/engine/semantic/key-guard.js";

const vocab = new KeyVocab(['"', "1", ",", "]"]);

/** A map whose values are arrays of distinct integers, beside one listed member. */
function mapPlan() {
  const schema = { type: "object", properties: { listed: { type: "array", uniqueItems: true, items: { type: "integer" } } }, additionalProperties: { type: "array", uniqueItems: true, items: { type: "integer" } } };
  const r = compileSchema(schema as never, { guardedUnique: true, maxTokens: 256 });
  if (!r.ok || !r.value.unique) throw new Error("no plan");
  return r.value.unique;
}

describe("a key named like an Object.prototype member", () => {
  test("is an other member of the plan, not a prototype lookup", () => {
    const plan = mapPlan();
    const other = shapesAtKey(plan, plan.root, "anything");
    for (const key of ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"]) expect(shapesAtKey(plan, plan.root, key), key).toEqual(other);
  });

  test("a member the schema lists under such a name is that member", () => {
    const unique = { type: "array", uniqueItems: true, items: { type: "integer" } };
    const schema = { type: "object", properties: { constructor: { type: "string" }, ["__proto__"]: { ...unique, items: { type: "string" } } }, additionalProperties: unique };
    const r = compileSchema(JSON.parse(JSON.stringify(schema)) as never, { guardedUnique: true, maxTokens: 256 });
    if (!r.ok || !r.value.unique) throw new Error("no plan");
    const plan = r.value.unique;
    const other = shapesAtKey(plan, plan.root, "anything");
    expect(other.length).toBeGreaterThan(0);
    // A listed string leads to no array: no shapes, not the other members'.
    expect(shapesAtKey(plan, plan.root, "constructor")).toEqual([]);
    // A listed array of distinct items: its own shape, not the other members'.
    const proto = shapesAtKey(plan, plan.root, "__proto__");
    expect(proto.length).toBeGreaterThan(0);
    expect(proto).not.toEqual(other);
  });

  test("the guard feeds such a key's array and still finds its repeated item", () => {
    const plan = mapPlan();
    for (const key of ["constructor", "toString", "__proto__"]) {
      const guard = new KeyGuard(vocab, { kind: "value", plan, shapes: plan.root });
      expect(guard.feed(`{"${key}": [1, 2`), key).toBe(false);
      expect(guard.feed(", 1]"), key).toBe(true);
    }
  });
});

describe("a $ref naming an Object.prototype member", () => {
  test("points at nothing in the document, and says so", () => {
    for (const ref of ["#/__proto__", "#/constructor", "#/toString", "#/properties/x/constructor"]) {
      const tools = normalizeTools([{ name: "t", parameters: { type: "object", properties: { x: { $ref: ref } } } }]);
      const r = compileToolGrammar(tools, { toolChoice: "required" });
      expect(r.ok, ref).toBe(false);
      if (!r.ok) expect(r.error.message, ref).toContain(`$ref "${ref}" points at nothing`);
    }
  });
});
