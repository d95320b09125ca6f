// Owns: BFCL's AST checker, written from the rules BFCL publishes (bfcl_eval/eval_checker/ast_eval): the function
// name, required parameters, Python-style types (one level into arrays), allowed values from possible_answer
// (strings compared loosely, dicts and lists of dicts key by key, "" marking an optional parameter), order-free
// matching of parallel calls, and the relevance categories (irrelevance = no call, relevance = some call).

/** One parameter of a BFCL function doc: BFCL's own type names (`dict`, `float`, `tuple`, `any`, …). */
export interface BfclParam {
  type: string;
  items?: BfclParam;
  [key: string]: unknown;
}

/** A function doc as BFCL's data files hold it. */
export interface BfclFunction {
  name: string;
  description?: string;
  parameters: { type: string; properties: Record<string, BfclParam>; required?: string[] };
}

/** One expected call of possible_answer: `{name: {param: [allowed values…]}}`; `""` among them = may be omitted. */
export type BfclExpectedCall = Record<string, Record<string, unknown[]>>;

/** A call the model made, as the post-parser accepted it. */
export interface BfclCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** How a question is judged: BFCL routes on its category name the same way (see checkerKindOf). */
export type BfclCheckerKind = "simple" | "multiple" | "parallel" | "irrelevance" | "relevance";

/** Why a question failed; the names follow BFCL's error types. */
export const BFCL_ERRORS = [
  "invalid_block",
  "wrong_count",
  "wrong_func_name",
  "missing_required",
  "unexpected_param",
  "type_error",
  "value_error",
  "missing_optional",
  "cannot_find_match",
  "irrelevance_called",
  "relevance_no_call",
] as const;
export type BfclError = (typeof BFCL_ERRORS)[number];

export type BfclVerdict = { ok: true } | { ok: false; error: BfclError; message: string };

const OK: BfclVerdict = { ok: true };
const no = (error: BfclError, message: string): BfclVerdict => ({ ok: false, error, message });

/** BFCL's category → checker: "parallel" anywhere first, then "multiple", then the relevance ones, else simple. */
export function checkerKindOf(category: string): BfclCheckerKind {
  if (category.includes("irrelevance")) return "irrelevance";
  if (category.includes("relevance")) return "relevance";
  if (category.includes("parallel")) return "parallel";
  if (category.includes("multiple")) return "multiple";
  return "simple";
}

/**
 * Judge one question. `rejectedBlocks` counts the call blocks the parser refused: BFCL cannot decode such an
 * output, so it fails every category that expects calls; under irrelevance only valid calls count as calls.
 */
export function checkBfcl(
  kind: BfclCheckerKind,
  functions: readonly BfclFunction[],
  calls: readonly BfclCall[],
  expected: readonly BfclExpectedCall[],
  rejectedBlocks = 0,
): BfclVerdict {
  if (kind === "irrelevance") return calls.length === 0 ? OK : no("irrelevance_called", `called ${calls.map((c) => c.name).join(", ")} where no function fits`);
  if (rejectedBlocks > 0) return no("invalid_block", `${rejectedBlocks} call block(s) rejected by the parser`);
  if (kind === "relevance") return calls.length > 0 ? OK : no("relevance_no_call", "no call where a function fits");
  if (kind === "parallel") return parallelNoOrder(functions, calls, expected);
  if (calls.length !== expected.length) return no("wrong_count", `expected ${expected.length} call(s), got ${calls.length}`);
  if (kind === "multiple") {
    const want = expected[0] as BfclExpectedCall;
    return checkOneCall(findFunction(functions, nameOf(want)), calls[0] as BfclCall, want);
  }
  return checkOneCall(functions[0], calls[0] as BfclCall, expected[0] as BfclExpectedCall);
}

function parallelNoOrder(functions: readonly BfclFunction[], calls: readonly BfclCall[], expected: readonly BfclExpectedCall[]): BfclVerdict {
  if (calls.length !== expected.length) return no("wrong_count", `expected ${expected.length} call(s), got ${calls.length}`);
  const matched = new Set<number>();
  for (const [i, want] of expected.entries()) {
    const fn = findFunction(functions, nameOf(want));
    let last: BfclVerdict | null = null;
    for (const [j, call] of calls.entries()) {
      if (matched.has(j)) continue;
      last = checkOneCall(fn, call, want);
      if (last.ok) {
        matched.add(j);
        break;
      }
    }
    if (!last?.ok) return no("cannot_find_match", `no call matches expected call ${i} (${nameOf(want)})${last && !last.ok ? `: ${last.message}` : ""}`);
  }
  return OK;
}

const nameOf = (want: BfclExpectedCall): string => Object.keys(want)[0] ?? "";
const findFunction = (functions: readonly BfclFunction[], name: string): BfclFunction | undefined => functions.find((f) => f.name === name);

/** BFCL's type names → the Python type its checker compares against (`tuple` is a list after JSON, `any` a str). */
const PYTHON_KIND: Readonly<Record<string, Kind>> = { string: "str", integer: "int", float: "float", boolean: "bool", array: "list", tuple: "list", dict: "dict", any: "str" };
type Kind = "str" | "int" | "float" | "bool" | "list" | "dict" | "none";

/**
 * The Python type a JSON value would have. Numbers: JSON (and so the parsed call) keeps no int/float mark, so a
 * number is a float where a float is expected (BFCL converts int to float there too) and an int when integral.
 */
function kindOf(v: unknown, expected: Kind | null): Kind {
  if (typeof v === "string") return "str";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return expected === "float" || !Number.isInteger(v) ? "float" : "int";
  if (Array.isArray(v)) return "list";
  return v === null ? "none" : "dict";
}

function checkOneCall(fn: BfclFunction | undefined, call: BfclCall, want: BfclExpectedCall): BfclVerdict {
  const name = nameOf(want);
  if (!fn) return no("wrong_func_name", `expected function ${name} is not among the question's functions`);
  const answers = want[name] ?? {};
  if (call.name !== fn.name) return no("wrong_func_name", `expected ${fn.name}, got ${call.name}`);
  const props = fn.parameters.properties ?? {};
  for (const p of fn.parameters.required ?? []) if (!Object.hasOwn(call.arguments, p)) return no("missing_required", `missing required parameter ${p}`);
  for (const [param, value] of Object.entries(call.arguments)) {
    const allowed = answers[param];
    const doc = props[param];
    if (!doc || !allowed) return no("unexpected_param", `unexpected parameter ${param}`);
    const verdict = checkParam(param, value, doc, allowed);
    if (!verdict.ok) return verdict;
  }
  for (const [param, allowed] of Object.entries(answers)) {
    if (!Object.hasOwn(call.arguments, param) && !allowed.includes("")) return no("missing_optional", `parameter ${param} is expected and not optional`);
  }
  return OK;
}

function checkParam(param: string, value: unknown, doc: BfclParam, allowed: readonly unknown[]): BfclVerdict {
  const expected = PYTHON_KIND[doc.type];
  if (!expected) return no("type_error", `parameter ${param}: unknown BFCL type ${JSON.stringify(doc.type)}`);
  const nested = doc.type === "array" || doc.type === "tuple" ? (PYTHON_KIND[doc.items?.type ?? ""] ?? null) : null;
  const typed = typeCheck(value, allowed, expected, nested);
  if (!typed.ok) return no("type_error", `parameter ${param}: expected ${doc.type}, got ${kindOf(value, expected)}`);
  if (!typed.isVariable) {
    // BFCL's special cases: dicts and lists of dicts key by key, strings and lists loosely.
    if (expected === "dict") return dictCheck(param, value as Record<string, unknown>, allowed);
    if (expected === "list" && nested === "dict") return listDictCheck(param, value as unknown[], allowed);
    if (expected === "str") return allowed.some((a) => typeof a === "string" && standardize(a) === standardize(value as string)) ? OK : badValue(param, value);
    if (expected === "list") return allowed.some((a) => deepEqual(standardizeList(a), standardizeList(value))) ? OK : badValue(param, value);
  }
  return allowed.some((a) => deepEqual(a, value)) ? OK : badValue(param, value);
}

const badValue = (param: string, value: unknown): BfclVerdict => no("value_error", `parameter ${param}: value ${JSON.stringify(value)?.slice(0, 80)} is not among the allowed ones`);

/**
 * BFCL's type check: the value has the doc's type (arrays: each item the item type, for at least one allowed
 * list), or it has the type of the allowed values, which BFCL reads as "a variable name" (compared exactly).
 */
function typeCheck(value: unknown, allowed: readonly unknown[], expected: Kind, nested: Kind | null): { ok: boolean; isVariable: boolean } {
  const first = allowed.find((a) => a !== "");
  const answerKind = first === undefined ? null : kindOf(first, expected);
  const isVariable = answerKind !== null && answerKind !== expected;
  if (kindOf(value, expected) === expected) {
    if (nested === null) return { ok: true, isVariable };
    for (const item of allowed) {
      if (!Array.isArray(item) || (value as unknown[]).every((v) => typeCheck(v, item, nested, null).ok)) return { ok: true, isVariable };
    }
  }
  if (answerKind !== null && kindOf(value, answerKind) === answerKind) return { ok: true, isVariable: true };
  return { ok: false, isVariable };
}

function dictCheck(param: string, value: Record<string, unknown>, allowed: readonly unknown[]): BfclVerdict {
  let last: BfclVerdict = no("value_error", `parameter ${param}: no allowed dict`);
  for (const answer of allowed) {
    if (answer === "" || answer === null || typeof answer !== "object" || Array.isArray(answer)) continue;
    last = dictMatches(param, value, answer as Record<string, unknown>);
    if (last.ok) return OK;
  }
  return last;
}

function dictMatches(param: string, value: Record<string, unknown>, answer: Record<string, unknown>): BfclVerdict {
  for (const [key, v] of Object.entries(value)) {
    const options = answer[key];
    if (!Array.isArray(options)) return no("value_error", `parameter ${param}: unexpected key ${key}`);
    const got = typeof v === "string" ? standardize(v) : v;
    if (!options.some((o) => deepEqual(typeof o === "string" ? standardize(o) : o, got))) return no("value_error", `parameter ${param}: key ${key} has a value not among the allowed ones`);
  }
  for (const [key, options] of Object.entries(answer)) {
    if (!Object.hasOwn(value, key) && !(Array.isArray(options) && options.includes(""))) return no("value_error", `parameter ${param}: missing key ${key}`);
  }
  return OK;
}

function listDictCheck(param: string, value: unknown[], allowed: readonly unknown[]): BfclVerdict {
  let last: BfclVerdict = no("value_error", `parameter ${param}: no allowed list of dicts`);
  for (const answer of allowed) {
    if (!Array.isArray(answer) || answer.length !== value.length) {
      last = no("value_error", `parameter ${param}: wrong number of dicts`);
      continue;
    }
    const each = value.map((v, i) => (isDict(v) && isDict(answer[i]) ? dictMatches(param, v, answer[i]) : no("value_error", `parameter ${param}: item ${i} is not a dict`)));
    const bad = each.find((r) => !r.ok);
    if (!bad) return OK;
    last = bad;
  }
  return last;
}

const isDict = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** BFCL's loose string comparison: no spaces or `,./-_*^`, lower case, `'` read as `"`. */
export function standardize(s: string): string {
  return s.replace(/[ ,./\-_*^]/g, "").toLowerCase().replace(/'/g, '"');
}

/** A list with its string items standardized; BFCL reads `""` (an optional marker) as the empty list here. */
function standardizeList(v: unknown): unknown {
  if (v === "") return [];
  return Array.isArray(v) ? v.map((x) => (typeof x === "string" ? standardize(x) : x)) : v;
}

/** Python `==` on JSON values (numbers by value, dict keys order-free). */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (!isDict(a) || !isDict(b)) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
}
