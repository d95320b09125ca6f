// Owns: `dependentRequired`, `dependentSchemas` and draft-04's `dependencies`, held exactly by splitting an object
// schema into variants: for each dependency on a member A, "A absent" (A listed as `false`: never written, and
// no extra key spells it) or "A present, with what it demands" (its required names, or its schema as an allOf
// part). k dependencies make 2^k variants, so at most MAX_DEPENDENCIES are expanded.

import type { QtcError } from "../errors.js";
import type { JsonSchema } from "../tools/types.js";
import { invalid, isObject, pointer, unsupported } from "./schema-keywords.js";

/** Dependencies one object schema may have (2^k variants). */
export const MAX_DEPENDENCIES = 4;

const WORDS = ["dependentRequired", "dependentSchemas", "dependencies"] as const;

/** Whether a schema has a dependency keyword to expand. */
export function hasDependencies(s: JsonSchema): boolean {
  return WORDS.some((w) => isObject(s[w]) && Object.keys(s[w] as object).length > 0);
}

/** The variants whose union is exactly `s` (its dependency keywords expanded), or why they cannot be made. */
export function expandDependencies(s: JsonSchema, path: string): JsonSchema[] | QtcError {
  const rest: JsonSchema = { ...s };
  const deps: { member: string; needs: unknown; at: string }[] = [];
  for (const w of WORDS) {
    const v = s[w];
    delete rest[w];
    if (!isObject(v)) continue;
    for (const [member, needs] of Object.entries(v)) {
      const at = pointer(path, w, member);
      if (w === "dependentRequired" && !Array.isArray(needs)) return invalid(at, "dependentRequired values must be arrays of names");
      if (Array.isArray(needs) && !needs.every((n) => typeof n === "string")) return invalid(at, "dependency names must be strings");
      deps.push({ member, needs, at });
    }
  }
  if (deps.length > MAX_DEPENDENCIES) return unsupported(deps[MAX_DEPENDENCIES]!.at, `more than ${MAX_DEPENDENCIES} dependencies in one object schema are not supported`);
  let variants: JsonSchema[] = [rest];
  for (const d of deps) {
    const next: JsonSchema[] = [];
    for (const v of variants) {
      const props = isObject(v.properties) ? v.properties : {};
      const required = Array.isArray(v.required) ? v.required : [];
      next.push({ ...v, properties: { ...props, [d.member]: false } });
      const present: JsonSchema = { ...v, required: [...required, d.member, ...(Array.isArray(d.needs) ? (d.needs as string[]) : [])] };
      next.push(Array.isArray(d.needs) ? present : { allOf: [present, d.needs as JsonSchema] });
    }
    variants = next;
  }
  return variants;
}
