// Owns: the stated size limits of what the grammar compiler accepts (schema size, nesting, enum size, bounds,
// the byte budget of one grammar) and the bounded walk that checks a schema document against them before any
// other work, so that no client schema can make one compile run long (see docs/grammar.md, "Limits").

import type { QtcError } from "../errors.js";
import { VALIDATOR_LIMITS, walkSchemaDocument } from "../tools/schema-limits.js";
import { isObject, pointer } from "./schema-keywords.js";

/** The limits (one object; docs and tests read them here). */
export const SCHEMA_LIMITS = Object.freeze({
  /** JSON values (objects, arrays, strings, numbers, …) in all the schemas of one compile together. */
  maxValues: 10_000,
  /** UTF-8 bytes of the strings (keys included) in all the schemas of one compile together. */
  maxStringBytes: 256 * 1024,
  /** Nesting depth of a schema document (every object or array level counts): the validator's limit, one walk for both (64). */
  maxDepth: VALIDATOR_LIMITS.maxDepth,
  /** Values of one `enum`. */
  maxEnumValues: 1024,
  /** Branches of one `anyOf` or `oneOf` (a oneOf's branches are compared pairwise). */
  maxUnionOptions: 256,
  /** Parts of one `allOf` (each is merged into the others). */
  maxAllOfParts: 64,
  /** `pattern` keywords in all the schemas of one compile together (each becomes its own automaton). */
  maxPatterns: 64,
  /** Largest `minItems` (a larger one forces a value no budget holds). `maxItems` may be any whole number. */
  maxMinItems: 1000,
  /** Largest `minLength`. */
  maxMinLength: 1000,
  /** Nodes of the compiler's value tree for one schema (bounds what `$ref` and `allOf` merges expand into). */
  maxTreeNodes: 5_000,
  /** Emit steps for one compile (value × budget pairs the emitter works out); bounds every other super-linear path. */
  maxEmitSteps: 200_000,
  /**
   * Work for all the pattern automata of one compile together (regex-dfa.ts: subset constructions, products,
   * minimizing, reading back), in the units one automaton's own cap counts (1,000,000 each). Past it, a form that
   * needs an automaton is refused like one past that automaton's own cap.
   */
  maxAutomatonWork: 4_000_000,
  /**
   * Most bytes one grammar bounds its text to, whatever maxTokens says: a bounded text costs two rules per
   * byte, so a larger budget would only make a larger grammar. Calls and answers beyond it are not admitted.
   */
  maxBudgetBytes: 8_192,
});

export function tooLarge(path: string, message: string): QtcError {
  return { code: "schema_too_large", message, path };
}

/** What one compile has used of the document limits so far (shared by its tools and its response schema). */
export interface SizeMeter {
  values: number;
  stringBytes: number;
  patterns: number;
}

export function newSizeMeter(): SizeMeter {
  return { values: 0, stringBytes: 0, patterns: 0 };
}

/**
 * Walk a schema document (the validator's walk, walkSchemaDocument: iterative, so depth cannot overflow the stack)
 * and refuse, at its JSON pointer, the first place over a limit. Stops at the limit, so the walk itself is bounded.
 */
export function checkSchemaSize(root: unknown, meter: SizeMeter = newSizeMeter()): QtcError | undefined {
  const L = SCHEMA_LIMITS;
  const text = () => tooLarge("", `the schemas hold more than ${L.maxStringBytes} bytes of text`);
  return walkSchemaDocument(
    root,
    (value, path) => {
      if (++meter.values > L.maxValues) return tooLarge(path, `the schemas hold more than ${L.maxValues} JSON values; split the tools or simplify the schema`);
      if (typeof value === "string") {
        meter.stringBytes += Buffer.byteLength(value, "utf8");
        return meter.stringBytes > L.maxStringBytes ? { ...text(), path } : undefined;
      }
      if (!isObject(value)) return undefined;
      const own = limitError(value, path, meter);
      if (own) return own;
      for (const key of Object.keys(value)) meter.stringBytes += Buffer.byteLength(key, "utf8");
      return meter.stringBytes > L.maxStringBytes ? { ...text(), path } : undefined;
    },
    L.maxDepth,
  );
}

/**
 * Keyword values over a limit in one object of the document. Any object is checked (one under `properties`
 * or `examples` too): a false alarm there costs nothing, a miss would cost a hang.
 */
function limitError(s: Record<string, unknown>, path: string, meter: SizeMeter): QtcError | undefined {
  const L = SCHEMA_LIMITS;
  for (const key of ["anyOf", "oneOf"]) {
    const list = s[key];
    if (Array.isArray(list) && list.length > L.maxUnionOptions) return tooLarge(pointer(path, key), `${key} has ${list.length} branches; at most ${L.maxUnionOptions} are supported`);
  }
  if (Array.isArray(s.allOf) && s.allOf.length > L.maxAllOfParts) return tooLarge(pointer(path, "allOf"), `allOf has ${s.allOf.length} parts; at most ${L.maxAllOfParts} are supported`);
  if (typeof s.pattern === "string" && ++meter.patterns > L.maxPatterns) {
    return tooLarge(pointer(path, "pattern"), `the schemas hold more than ${L.maxPatterns} patterns`);
  }
  if (Array.isArray(s.enum) && s.enum.length > L.maxEnumValues) {
    return tooLarge(pointer(path, "enum"), `enum has ${s.enum.length} values; at most ${L.maxEnumValues} are supported`);
  }
  if (typeof s.minItems === "number" && s.minItems > L.maxMinItems) {
    return tooLarge(pointer(path, "minItems"), `minItems ${s.minItems} is above the supported ${L.maxMinItems}`);
  }
  if (typeof s.minLength === "number" && s.minLength > L.maxMinLength) {
    return tooLarge(pointer(path, "minLength"), `minLength ${s.minLength} is above the supported ${L.maxMinLength}`);
  }
  return undefined;
}
