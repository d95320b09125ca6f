// Owns: `dependentRequired`, `dependentSchemas` and draft-04's `dependencies`, held exactly by splitting an object
// schema into variants: for each dependency on a member A, "A absent" (A listed as `false`: never written, and
// no extra key spells it) or "A present, with what it demands" (its required names, or its schema as an allOf
// part). k dependencies make 2^k variants, so at most MAX_DEPENDENCIES are expanded. Past SPLIT_ON_NEEDS of them,
// lists of names are split on the names they need (at most SPLIT_ON_NEEDS of them) rather than on their triggers,
// where that applies: fewer variants for the same union.

import type { QtcError } from "../errors.js";
import type { JsonSchema } from "../tools/types.js";
import { invalid, isObject, pointer, unsupported } from "./schema-keywords.js";

/** Dependencies one object schema may have (2^k variants). */
export const MAX_DEPENDENCIES = 6;
/** Dependencies past which lists of names are split on the names they need, where they can be (2^names variants). */
const SPLIT_ON_NEEDS = 4;

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
  if (deps.length > SPLIT_ON_NEEDS) {
    const byNeeds = splitOnNeeds(rest, deps);
    if (byNeeds) return byNeeds;
    if (deps.length > MAX_DEPENDENCIES) {
      return unsupported(deps[MAX_DEPENDENCIES]!.at, `more than ${MAX_DEPENDENCIES} dependencies in one object schema are not supported (beyond that, only lists of required names over at most ${SPLIT_ON_NEEDS} names in all)`);
    }
  }
  let variants: JsonSchema[] = [rest];
  for (const d of deps) {
    const next: JsonSchema[] = [];
    for (const v of variants) {
      const props = isObject(v.properties) ? v.properties : {};
      next.push({ ...v, properties: { ...props, [d.member]: false } });
      // After what v requires (an earlier dependency's schema sits in v's allOf): members come in dependency order.
      const needs: JsonSchema = { required: [d.member, ...(Array.isArray(d.needs) ? (d.needs as string[]) : [])] };
      next.push({ allOf: [v, needs, ...(Array.isArray(d.needs) ? [] : [d.needs as JsonSchema])] });
    }
    variants = next;
  }
  return variants;
}

/**
 * Many dependencies that are all lists of names, split on the names they need rather than on their triggers: for
 * each set S of the needed names present (the others absent), every trigger that needs a name outside S is
 * absent. Each object falls in exactly one S, so the union is exact; variants that contradict themselves (a
 * trigger S holds that needs a name outside S, or a name rest requires left out) are dropped. Undefined when a
 * dependency is a schema or more than SPLIT_ON_NEEDS names are needed in all.
 */
function splitOnNeeds(rest: JsonSchema, deps: readonly { member: string; needs: unknown }[]): JsonSchema[] | undefined {
  if (!deps.every((d) => Array.isArray(d.needs))) return undefined;
  const names = [...new Set(deps.flatMap((d) => d.needs as string[]))];
  if (names.length > SPLIT_ON_NEEDS) return undefined;
  const props = isObject(rest.properties) ? rest.properties : {};
  const required = Array.isArray(rest.required) ? (rest.required as unknown[]) : [];
  const out: JsonSchema[] = [];
  for (let mask = 0; mask < 1 << names.length; mask++) {
    const present = new Set(names.filter((_, i) => mask & (1 << i)));
    const absent = new Set(names.filter((n) => !present.has(n)));
    for (const d of deps) if (!(d.needs as string[]).every((n) => present.has(n))) absent.add(d.member);
    if ([...absent].some((n) => present.has(n) || required.includes(n))) continue;
    const closed: Record<string, unknown> = { ...props };
    for (const n of absent) closed[n] = false;
    out.push({ ...rest, required: [...new Set([...required, ...present])], properties: closed });
  }
  return out;
}
