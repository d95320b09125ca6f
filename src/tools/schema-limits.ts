// Owns: what a caller's JSON Schema must pass before ajv or the grammar compiler sees it: a nesting depth checked
// without recursion (both of them recurse and would overflow the stack), and a `$schema` draft qtc can validate.

import type { QtcError, Result } from "../errors.js";
import { err, ok } from "../errors.js";

export const VALIDATOR_LIMITS = Object.freeze({
  /**
   * Deepest nesting of objects and arrays in one schema document (the schema itself is depth 1; each
   * `properties` map and each subschema adds one). 64 is about 30 levels of nested objects, and the same as the
   * grammar compiler's own depth limit, so the validator and the grammar refuse the same schemas. Default: 64.
   */
  maxDepth: 64,
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
 * Refuse a schema document nested deeper than `limits.maxDepth` with `schema_too_large` and the JSON pointer of the
 * first value past the limit. Iterative: a 100,000-deep document costs a loop, not a stack.
 */
export function checkSchemaDepth(schema: unknown, limits: ValidatorLimits = VALIDATOR_LIMITS): QtcError | undefined {
  const stack: Frame[] = [{ value: schema, depth: 1, key: "", parent: undefined }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (typeof frame.value !== "object" || frame.value === null) continue;
    if (frame.depth > limits.maxDepth) {
      return {
        code: "schema_too_large",
        message: `the schema nests deeper than ${limits.maxDepth} levels (at ${pointerOf(frame)}); flatten it, or name repeated parts in $defs and use $ref`,
        path: pointerOf(frame),
      };
    }
    const entries = Array.isArray(frame.value) ? frame.value.map((v, i) => [String(i), v] as const) : Object.entries(frame.value);
    for (const [key, value] of entries) {
      if (typeof value === "object" && value !== null) stack.push({ value, depth: frame.depth + 1, key, parent: frame });
    }
  }
  return undefined;
}

interface Frame {
  value: unknown;
  depth: number;
  key: string;
  parent: Frame | undefined;
}

/** The JSON pointer of a frame: its keys from the root, `~` and `/` escaped. */
function pointerOf(frame: Frame): string {
  const keys: string[] = [];
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) keys.push(f.key.replace(/~/g, "~0").replace(/\//g, "~1"));
  return keys.length ? `/${keys.reverse().join("/")}` : "";
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
