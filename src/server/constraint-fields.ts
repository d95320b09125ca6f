// Owns: the constraining fields other servers' clients send, read into one answer constraint or refused with a 400
// naming the field (never ignored): vLLM's `structured_outputs` {regex, choice, grammar, json} and its older
// `guided_*` names, llama-server's top-level `grammar` and `json_schema` (chat and text completions), and qtc's own
// `x-qtc-constraint` body field (the same shape as `structured_outputs`; the one way on `/v1/messages`).

import { checkTextConstraint, type AnswerConstraint } from "../grammar/answer-constraint.js";
import { parseUserGrammar } from "../engine/user-gbnf.js";
import type { JsonSchema } from "../tools/types.js";
import { ApiError, badRequest, unsupported } from "./api-error.js";
import { checkResponseSchema, isObject, type Obj, type SchemaCheck } from "./convert-util.js";

/** A constraint read from a request, and the field it came from (what a 400 about it names). */
export interface ConstraintField {
  constraint: AnswerConstraint;
  param: string;
}

/** qtc's body extension for a constraint on routes whose API has no field for one (`/v1/messages`). */
export const QTC_CONSTRAINT_FIELD = "x-qtc-constraint";

/** The keys of a `structured_outputs` object qtc honours, and those it refuses (vLLM has them; qtc cannot hold them). */
const HONOURED = ["regex", "choice", "grammar", "json"] as const;
const REFUSED: Readonly<Record<string, string>> = {
  json_object: 'send response_format {"type": "json_object"} instead',
  structural_tag: "qtc builds the tool-call structure from tools itself; declare tools instead",
  whitespace_pattern: "qtc's JSON grammar writes canonical whitespace only; remove it",
  disable_any_whitespace: "qtc's JSON grammar writes canonical whitespace only; remove it",
  disable_additional_properties: "remove it and say additionalProperties in the schema",
  disable_fallback: "qtc has no fallback backend; remove it",
  backend: "qtc has one grammar engine; remove it",
};

/** vLLM's pre-0.12 names, each mapped to its `structured_outputs` key (or refused). */
const GUIDED: Readonly<Record<string, (typeof HONOURED)[number] | undefined>> = {
  guided_regex: "regex",
  guided_choice: "choice",
  guided_grammar: "grammar",
  guided_json: "json",
  guided_decoding_backend: undefined,
  guided_whitespace_pattern: undefined,
};

/** llama-server fields that change how its `grammar` applies; qtc decides that from the tool choice itself. */
const LLAMA_REFUSED = ["grammar_lazy", "grammar_triggers", "preserved_tokens"] as const;

const set = (v: unknown) => v !== undefined && v !== null;

/**
 * The constraint of a request body (chat, text completions, responses, messages: every route reads the same
 * fields, so none is ignored on any), or undefined when it sends none. Two constraining fields at once (or one
 * beside a JSON `response_format` / `text.format`) are refused: qtc holds one answer shape.
 */
export function constraintOfOpenAIBody(body: Obj, check: SchemaCheck, responseFormat = false): ConstraintField | undefined {
  for (const key of LLAMA_REFUSED) {
    if (set(body[key]) && body[key] !== false && !(Array.isArray(body[key]) && body[key].length === 0)) {
      throw unsupported(key, `${key} is not supported: qtc starts the grammar where the tool choice says (the answer under "auto" is the constraint or calls); remove ${key}.`);
    }
  }
  const found: ConstraintField[] = [];
  if (set(body.structured_outputs)) found.push(readStructured(body.structured_outputs, "structured_outputs", check));
  if (set(body[QTC_CONSTRAINT_FIELD])) found.push(readStructured(body[QTC_CONSTRAINT_FIELD], QTC_CONSTRAINT_FIELD, check));
  for (const [key, kind] of Object.entries(GUIDED)) {
    if (!set(body[key])) continue;
    if (kind === undefined) throw unsupported(key, `${key} is not supported: qtc has one grammar engine and writes canonical whitespace; remove ${key}.`);
    found.push(readOne(kind, body[key], key, check));
  }
  if (set(body.grammar)) found.push(readOne("grammar", body.grammar, "grammar", check));
  if (set(body.json_schema)) found.push(readOne("json", body.json_schema, "json_schema", check));
  if (found.length > 1) throw badRequest(`${found[0]!.param} and ${found[1]!.param} both constrain the answer; send one.`, found[1]!.param);
  const field = found[0];
  if (field && responseFormat) throw badRequest(`the response format and ${field.param} both constrain the answer; send one.`, field.param);
  return field;
}

/** A `structured_outputs`-shaped object: exactly one of regex, choice, grammar, json. */
function readStructured(raw: unknown, param: string, check: SchemaCheck): ConstraintField {
  if (!isObject(raw)) throw badRequest(`${param} must be an object with one of ${HONOURED.join(", ")}.`, param);
  for (const [key, value] of Object.entries(raw)) {
    if (!set(value) || value === false) continue;
    const refusal = REFUSED[key];
    if (refusal !== undefined) throw unsupported(`${param}.${key}`, `${param}.${key} is not supported: ${refusal}.`);
    if (!(HONOURED as readonly string[]).includes(key)) throw unsupported(`${param}.${key}`, `${param}.${key} is not supported; qtc honours ${HONOURED.join(", ")}.`);
  }
  const given = HONOURED.filter((k) => set(raw[k]));
  if (given.length !== 1) throw badRequest(`${param} must have exactly one of ${HONOURED.join(", ")}; got ${given.join(", ") || "none"}.`, param);
  const kind = given[0]!;
  return readOne(kind, raw[kind], `${param}.${kind}`, check);
}

/** One constraint value, checked and bounded here so a 400 names the field it came from. */
function readOne(kind: (typeof HONOURED)[number], value: unknown, param: string, check: SchemaCheck): ConstraintField {
  if (kind === "json") {
    let schema: unknown = value;
    if (typeof value === "string") {
      try {
        schema = JSON.parse(value);
      } catch {
        throw badRequest(`${param} must be a JSON Schema (an object, or a string holding one).`, param);
      }
    }
    if (!isObject(schema) && typeof schema !== "boolean") throw badRequest(`${param} must be a JSON Schema (an object, or a string holding one).`, param);
    if (isObject(schema)) checkResponseSchema(schema as JsonSchema, param, check.validators);
    return { constraint: { jsonSchema: schema as JsonSchema | boolean }, param };
  }
  if (kind === "choice" ? !Array.isArray(value) : typeof value !== "string") {
    throw badRequest(`${param} must be ${kind === "choice" ? "an array of strings" : "a string"}.`, param);
  }
  const constraint = kind === "regex" ? { regex: value as string } : kind === "choice" ? { choice: value as string[] } : { grammar: value as string };
  const checked = checkTextConstraint(constraint, parseUserGrammar);
  if (!checked.ok) throw new ApiError(400, checked.error.code, `${param}: ${checked.error.message}`, param);
  return { constraint, param };
}
