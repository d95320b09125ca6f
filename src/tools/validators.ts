// Owns: compiling each tool's parameters schema (ajv + ajv-formats) into a frozen CompiledTools that the parser
// validates every call against, and the caller-owned ValidatorCache that compiles each list once.

import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { fail } from "../errors.js";
import { BoundedCache } from "./bounded-cache.js";
import { linearRegExp } from "./linear-regexp.js";
import { normalizeTools } from "./normalize.js";
import { readParameters, typesOf, type ParameterInfo, type TypeSet } from "./schema-info.js";
import { checkSchemaDocument, declaredDraft, type SchemaDraft } from "./schema-limits.js";
import type { JsonSchema, ToolDefinition } from "./types.js";

// ajv-formats is CommonJS with `exports.default`; under NodeNext the default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule);

/** One ajv error, as data (keyword, where, params). */
export type SchemaError = ErrorObject;

/** A tool with its compiled validator and what its schema lists. Frozen. */
export interface CompiledTool extends ParameterInfo {
  readonly definition: ToolDefinition;
  readonly name: string;
  /** Validate parsed arguments; returns null when valid, else ajv's errors (all of them). */
  validate(args: unknown): readonly SchemaError[] | null;
  /** JSON types argument `name` may take (from its property schema, or the `additionalProperties` schema). */
  typesOf(name: string): TypeSet;
}

/** Every tool of one request, compiled. Frozen and cached: compile once, validate many. */
export interface CompiledTools {
  readonly tools: readonly ToolDefinition[];
  /** Declared names, in order (for "available tools" messages). */
  readonly names: readonly string[];
  get(name: string): CompiledTool | undefined;
}

/** Tool inputs accepted by compileValidators: a raw tools list (any accepted shape) or an already compiled set. */
export type ToolsLike = readonly unknown[] | CompiledTools;

const COMPILE_OPTIONS = {
  /** Report every failing keyword, so the model hears about all problems at once. */
  allErrors: true,
  /** Tool schemas in the wild carry annotations ajv does not know (`examples`, `x-…`); they are ignored. */
  strict: false,
  logger: false,
  /** maxLength/minLength count code points, like the grammar. */
  unicode: true,
  /**
   * multipleOf judged on the quotient rounded to 1e-9, not exactly in floating point (which calls 0.07 no multiple
   * of 0.01): the grammar spells multiples of 0.01 as at most 2 fraction digits, and the judge must agree.
   */
  multipleOfPrecision: 9,
  /** The schema was checked against its meta-schema already (see compileChecked). */
  validateSchema: false,
  /**
   * `pattern` / `patternProperties` run in linear time (re2js), never as a backtracking RegExp. No optimize pass
   * over the generated code: it was 55% of compiling a large schema, for no measurable gain in validating.
   */
  code: { regExp: linearRegExp, optimize: false },
} as const;

/** Tool lists and value schemas a ValidatorCache keeps by default (each a bounded LRU). */
export const VALIDATOR_CACHE_DEFAULTS = Object.freeze({
  /** Distinct tool lists (by JSON text). Default: 64. */
  toolLists: 64,
  /** Distinct value (response) schemas (by JSON text). Default: 64. */
  valueSchemas: 64,
});

/**
 * Compiled validators, owned by whoever creates it (a runtime, a server): compile once, validate many, within a
 * bound. Tool lists are found by identity (held weakly) and by JSON text (a bounded LRU), so per-request lists
 * (new arrays each time) compile once while they stay among the recent ones.
 */
export class ValidatorCache {
  readonly #byIdentity = new WeakMap<object, CompiledTools>();
  readonly #byContent: BoundedCache<string, CompiledTools>;
  readonly #values: BoundedCache<string, ValueValidator>;

  constructor(sizes: Partial<typeof VALIDATOR_CACHE_DEFAULTS> = {}) {
    this.#byContent = new BoundedCache(sizes.toolLists ?? VALIDATOR_CACHE_DEFAULTS.toolLists);
    this.#values = new BoundedCache(sizes.valueSchemas ?? VALIDATOR_CACHE_DEFAULTS.valueSchemas);
  }

  /** compileValidators through this cache. */
  tools(input: ToolsLike): CompiledTools {
    if (isCompiled(input)) return input;
    const byIdentity = this.#byIdentity.get(input as object);
    if (byIdentity) return byIdentity;
    const tools = normalizeTools(input);
    const key = safeKey(tools);
    const compiled = (key === undefined ? undefined : this.#byContent.get(key)) ?? build(tools);
    this.#byIdentity.set(input as object, compiled);
    if (key !== undefined) this.#byContent.set(key, compiled);
    return compiled;
  }

  /** compileValueValidator through this cache (keyed by the schema's JSON text). */
  value(schema: JsonSchema | boolean, what: string): ValueValidator {
    if (typeof schema === "boolean") return booleanValidator(schema);
    const key = safeKey(schema);
    const cached = key === undefined ? undefined : this.#values.get(key);
    if (cached) return cached;
    const validate = buildValue(schema, what);
    if (key !== undefined) this.#values.set(key, validate);
    return validate;
  }
}

/**
 * Compile a tools list (OpenAI, Anthropic or bare shapes; see normalizeTools) into validators. An already compiled
 * set is returned as it is. With a cache, the same array object, or a list with the same JSON, returns the same
 * frozen CompiledTools (so treat a list as immutable once compiled); without one, every call compiles. Throws
 * QtcException `invalid_tools` for a bad shape, `schema_too_large` for a schema nested deeper than
 * VALIDATOR_LIMITS.maxDepth or holding more than VALIDATOR_LIMITS.maxObjects objects, and `invalid_schema` naming the tool when ajv cannot compile its schema (an unknown
 * `$schema` included).
 */
export function compileValidators(input: ToolsLike, cache?: ValidatorCache): CompiledTools {
  if (isCompiled(input)) return input;
  return cache ? cache.tools(input) : build(normalizeTools(input));
}

function build(tools: readonly ToolDefinition[]): CompiledTools {
  const instances = ajvInstances();
  const byName = new Map<string, CompiledTool>();
  for (const tool of tools) {
    const fn = compileChecked(tool.parameters, `tool "${tool.name}": its parameters schema`, instances);
    const info = readParameters(tool.parameters);
    const root = tool.parameters;
    const types = new Map<string, TypeSet>([...info.properties].map(([key, schema]) => [key, typesOf(root, schema)]));
    const extraTypes = info.extraSchema ? typesOf(root, info.extraSchema) : "any";
    const compiledTool: CompiledTool = Object.freeze({
      ...info,
      definition: tool,
      name: tool.name,
      validate(args: unknown) {
        return fn(args) ? null : (fn.errors ?? []);
      },
      typesOf(name: string): TypeSet {
        return types.get(name) ?? extraTypes;
      },
    });
    byName.set(tool.name, compiledTool);
  }
  return Object.freeze({
    tools,
    names: Object.freeze(tools.map((t) => t.name)),
    get: (name: string) => byName.get(name),
  });
}

type AnyAjv = Ajv | Ajv2019 | Ajv2020;

/** One ajv instance per draft, created on first use: a tool list's validators are freed with the list. */
function ajvInstances(): (draft: SchemaDraft) => AnyAjv {
  const made = new Map<SchemaDraft, AnyAjv>();
  return (draft) => {
    let ajv = made.get(draft);
    if (!ajv) made.set(draft, (ajv = withFormats(newAjv(draft, COMPILE_OPTIONS))));
    return ajv;
  };
}

function newAjv(draft: SchemaDraft, options: typeof COMPILE_OPTIONS | typeof META_OPTIONS): AnyAjv {
  if (draft === "draft-07") return new Ajv(options);
  return draft === "2019-09" ? new Ajv2019(options) : new Ajv2020(options);
}

/**
 * Check the schema's size (depth, objects) and declared draft first (ajv recurses, its compile time grows with the
 * subschemas, and it throws on an unknown `$schema`), then check
 * it against its draft's meta-schema (on a shared instance that compiled the meta-schema once; validateSchema
 * stores nothing), then compile it on the caller's instance. Whatever ajv throws becomes `invalid_schema`.
 */
function compileChecked(schema: JsonSchema, what: string, instance: (draft: SchemaDraft) => AnyAjv): ValidateFunction {
  const tooLarge = checkSchemaDocument(schema);
  if (tooLarge) fail(tooLarge.code, `${what} is too large: ${tooLarge.message}`, { path: tooLarge.path });
  const declared = declaredDraft(schema);
  if (!declared.ok) fail(declared.error.code, `${what} cannot be compiled: ${declared.error.message}`, { path: declared.error.path });
  const tryDraft = (draft: SchemaDraft): ValidateFunction | string => {
    try {
      const meta = metaChecker(draft);
      if (!meta.validateSchema(schema)) return meta.errorsText(meta.errors, { dataVar: "schema" });
      return instance(draft).compile(schema);
    } catch (e) {
      return message(e);
    }
  };
  const first = tryDraft(declared.value ?? "2020-12");
  if (typeof first !== "string") return first;
  // A schema without $schema that uses draft-07 forms (array `items`, `dependencies`) still compiles there.
  if (declared.value === undefined) {
    const second = tryDraft("draft-07");
    if (typeof second !== "string") return second;
  }
  fail("invalid_schema", `${what} cannot be compiled: ${first}`);
}

/**
 * A validator for one JSON value (e.g. a response schema): returns null when `value` fits, else ajv's errors. With
 * a cache, one per schema text (the server checks a request's schema before the runtime compiles it again).
 * Throws QtcException `invalid_schema` when the schema cannot be compiled.
 */
export function compileValueValidator(schema: JsonSchema | boolean, cache?: ValidatorCache, what = "the response schema"): ValueValidator {
  if (cache) return cache.value(schema, what);
  return typeof schema === "boolean" ? booleanValidator(schema) : buildValue(schema, what);
}

function booleanValidator(schema: boolean): ValueValidator {
  return (value) => (schema ? null : [{ instancePath: "", schemaPath: "#", keyword: "false schema", params: {}, message: "boolean schema is false" }]);
}

function buildValue(schema: JsonSchema, what: string): ValueValidator {
  const fn = compileChecked(schema, what, ajvInstances());
  return (value) => (fn(value) ? null : (fn.errors ?? []));
}

/** Validates one JSON value: null when it fits, else ajv's errors. */
export type ValueValidator = (value: unknown) => readonly SchemaError[] | null;

const META_OPTIONS = { strict: false, logger: false, allErrors: true } as const;

/**
 * The three drafts' meta-schema checkers, each made on first use. Not a cache: a fixed table that holds no
 * caller input (validateSchema stores nothing), shared because making one costs ~50 ms (ajv compiles the
 * meta-schema), which would otherwise be paid on every uncached compile.
 */
const META_CHECKERS: Readonly<Record<SchemaDraft, () => AnyAjv>> = Object.freeze({
  "draft-07": once(() => newAjv("draft-07", META_OPTIONS)),
  "2019-09": once(() => newAjv("2019-09", META_OPTIONS)),
  "2020-12": once(() => newAjv("2020-12", META_OPTIONS)),
});

function metaChecker(draft: SchemaDraft): AnyAjv {
  return META_CHECKERS[draft]();
}

function once<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}

function withFormats<T extends AnyAjv>(ajv: T): T {
  (addFormats as unknown as (a: T) => unknown)(ajv);
  return ajv;
}

function isCompiled(input: ToolsLike): input is CompiledTools {
  return !Array.isArray(input) && typeof (input as CompiledTools).get === "function";
}

function safeKey(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function message(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).replace(/\s+/g, " ").slice(0, 500);
}

export type { JsonSchema };
