// Owns: what a caller's JSON Schema must pass before ajv or the grammar compiler sees it: the one document walk
// both use (nesting depth checked without recursion: both recurse and would overflow the stack), and a `$schema`
// draft qtc can validate.

import type { QtcError, Result } from "../errors.js";
import { err, ok } from "../errors.js";

export const VALIDATOR_LIMITS = Object.freeze({
  /**
   * Deepest nesting of objects and arrays in one schema document (the schema itself is depth 1; each
   * `properties` map and each subschema adds one). 64 is about 30 levels of nested objects; the grammar compiler
   * walks with the same walk and limit (SCHEMA_LIMITS.maxDepth), so both refuse the same schemas. Default: 64.
   */
  maxDepth: 64,
  /**
   * Objects in one schema document (subschemas and the maps that hold them). ajv turns every subschema into code
   * of its own and its compile time grows with them (a `prefixItems` of 4,900 took 1.5 s, twice), so they are
   * counted, in the same walk, before ajv sees the schema. 2,500 holds the largest schemas the grammar's limits
   * allow (the widest object, 2,450 properties, is 2,453 objects; test/grammar/largest-schemas.ts) and the
   * largest compiles in well under a second. Default: 2,500.
   */
  maxObjects: 2_500,
});

export type ValidatorLimits = typeof VALIDATOR_LIMITS;

/** The JSON Schema drafts qtc validates with (ajv's draft-07, 2019-09 and 2020-12 classes). */
export type SchemaDraft = "draft-07" | "2019-09" | "2020-12";

/** `$schema` URLs by draft, spelt without scheme or a trailing `#` (both vary in the wild). */
const DRAFT_URLS: Record<string, SchemaDraft> = {
  "json-schema.org/draft-07/schema": "draft-07",
  "json-schema.org/draft/2019-09/schema": "2019-09",
  "json-schema.org/draft/2020-12/schema": "2020-12",
};

/**
 * The draft a schema declares with a top-level `$schema`: undefined when it declares none. Any other URL (draft-04,
 * draft-06, a custom meta-schema) is `invalid_schema` at `/$schema`: ajv has no meta-schema for it, and guessing
 * would validate calls by rules the schema's author did not mean.
 */
export function declaredDraft(schema: unknown): Result<SchemaDraft | undefined> {
  if (!isObject(schema) || !("$schema" in schema)) return ok(undefined);
  const url = schema.$schema;
  const key = typeof url === "string" ? url.replace(/^https?:\/\//, "").replace(/#$/, "") : undefined;
  const draft = key === undefined ? undefined : DRAFT_URLS[key];
  if (draft) return ok(draft);
  const given = typeof url === "string" ? JSON.stringify(url.slice(0, 200)) : `a ${typeof url}`;
  return err({
    code: "invalid_schema",
    message: `$schema is ${given}; qtc validates draft-07 ("http://json-schema.org/draft-07/schema#"), 2019-09 and 2020-12 ("https://json-schema.org/draft/2020-12/schema"). Declare one of those, or remove $schema`,
    path: "/$schema",
  });
}

/**
 * What a document walk calls for each value: an error stops the walk with it. `path` is the value's JSON pointer,
 * `depth` its nesting level (the document itself is 1).
 */
export type DocumentVisitor = (value: unknown, path: string, depth: number) => QtcError | undefined;

/**
 * The one walk over a schema document that both the validator and the grammar compiler use before they recurse
 * (ajv and the compiler would overflow the stack on a deep document): every value in document order, iteratively
 * (a 100,000-deep document costs a loop, not a stack). An object or array deeper than `maxDepth` is
 * `schema_too_large` at its JSON pointer; `visit` may stop the walk earlier with its own error.
 */
export function walkSchemaDocument(root: unknown, visit: DocumentVisitor = () => undefined, maxDepth = VALIDATOR_LIMITS.maxDepth): QtcError | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: root, path: "", depth: 1 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    const stop = visit(value, path, depth);
    if (stop) return stop;
    if (typeof value !== "object" || value === null) continue;
    if (depth > maxDepth) {
      return {
        code: "schema_too_large",
        message: `the schema nests deeper than ${maxDepth} levels (at ${path || "the root"}); flatten it, or name repeated parts in $defs and use $ref`,
        path,
      };
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: `${path}/${i}`, depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      stack.push({ value: (value as Record<string, unknown>)[key], path: `${path}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`, depth: depth + 1 });
    }
  }
  return undefined;
}

/**
 * Refuse, before any compile, a schema document the validator would spend too long on: nested deeper than
 * `limits.maxDepth`, or holding more than `limits.maxObjects` objects. `schema_too_large` at the JSON pointer of the
 * first value past the limit, with what to do about it.
 */
export function checkSchemaDocument(schema: unknown, limits: ValidatorLimits = VALIDATOR_LIMITS): QtcError | undefined {
  let objects = 0;
  return walkSchemaDocument(
    schema,
    (value, path) => {
      if (!isObject(value) || ++objects <= limits.maxObjects) return undefined;
      return {
        code: "schema_too_large",
        message:
          `the schema holds more than ${limits.maxObjects} objects (subschemas and property maps; the first past the limit is at ${path}); ` +
          "describe repeated items once (`items` instead of a long `prefixItems`, or one schema in $defs with $ref), or split the tool into smaller ones",
        path,
      };
    },
    limits.maxDepth,
  );
}

/**
 * Refuse a schema document nested deeper than `limits.maxDepth` with `schema_too_large` and the JSON pointer of the
 * first value past the limit (walkSchemaDocument).
 */
export function checkSchemaDepth(schema: unknown, limits: ValidatorLimits = VALIDATOR_LIMITS): QtcError | undefined {
  return walkSchemaDocument(schema, undefined, limits.maxDepth);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
