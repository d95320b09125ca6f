// Shared by the limits regression test and the timing in docs/grammar.md: schemas as large as the stated limits
// allow, one per way a schema can make compiling costly (values, width, depth, unions, expansion, patterns).

import { SCHEMA_LIMITS as L } from "../../src/grammar/index.js";

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

export function largestSchemas(): Record<string, unknown> {
  const enumProps = Math.floor((L.maxValues - 200) / (L.maxEnumValues + 3));
  const wide = Math.floor((L.maxValues - 200) / 4);
  let deep: unknown = { type: "string" };
  const levels = Math.floor((L.maxDepth - 2) / 2);
  for (let i = 0; i < levels; i++) {
    deep = { type: "object", properties: { s: { type: "string" }, n: { type: "integer" }, o: { type: "string", maxLength: 8 }, x: deep }, required: ["s", "x"] };
  }
  const options = L.maxUnionOptions;
  const defs: Record<string, unknown> = { d0: { type: "object", properties: { v: { type: "string" } }, required: ["v"] } };
  for (let i = 1; i <= Math.floor(Math.log2(L.maxTreeNodes / 8)); i++) defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i - 1}`, maxProperties: 5 }, { $ref: `#/$defs/d${i - 1}`, minProperties: 1 }] };
  return {
    "largest enums": {
      type: "object",
      properties: Object.fromEntries(range(enumProps).map((p) => [`p${p}`, { enum: range(L.maxEnumValues).map((v) => `value-${p}-${v}`) }])),
      required: range(enumProps).map((p) => `p${p}`),
    },
    "widest object": {
      type: "object",
      properties: Object.fromEntries(range(wide).map((p) => [`p${p}`, { type: "string" }])),
      required: range(Math.floor(wide / 2)).map((p) => `p${p * 2}`),
      additionalProperties: { type: "integer" },
    },
    "deepest object": deep,
    "largest oneOf": {
      type: "object",
      properties: { v: { oneOf: range(options).map((i) => ({ type: "object", properties: { kind: { const: `k${i}` }, x: { type: "integer" } }, required: ["kind"] })) } },
      required: ["v"],
    },
    "largest $ref expansion": { $defs: defs, $ref: `#/$defs/d${Object.keys(defs).length - 1}` },
    "recursive tree": {
      $defs: { node: { type: "object", properties: { name: { type: "string" }, kids: { type: "array", items: { $ref: "#/$defs/node" } } }, required: ["name", "kids"] } },
      $ref: "#/$defs/node",
    },
    "many patterns": {
      type: "object",
      properties: Object.fromEntries(range(L.maxPatterns).map((p) => [`p${p}`, { type: "string", pattern: `^[a-z]{2,8}-(x|yy|[0-9]{1,3})${p}$` }])),
    },
    "largest allOf": { allOf: range(L.maxAllOfParts).map((p) => ({ type: "object", properties: { [`p${p}`]: { type: "integer" } } })) },
  };
}
