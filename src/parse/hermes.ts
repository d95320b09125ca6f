// Owns: the `json-call` decoder (hermes and its variants): strict JSON, exactly the name and arguments keys,
// arguments an object (or, the one leniency, a JSON string holding an object, decoded once).

import type { JsonCallSpelling } from "../formats/index.js";
import { describeJsonError } from "./json-errors.js";
import { decodeFail, type BodySyntax, type Decoded } from "./decoded.js";
import { nestsDeeper } from "./nesting.js";
import { duplicateKeyMessage, findDuplicateKey } from "./duplicate-keys.js";

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The JSON-call decoder (`json-call`) for one spelling: its decode, its name guess and its messages. */
export function jsonCallSyntax(spelling: JsonCallSpelling): BodySyntax {
  const { nameKey, argumentsKey } = spelling;
  const shape = `{"${nameKey}": "TOOL_NAME", "${argumentsKey}": {…}}`;
  const nameRe = new RegExp(`"${esc(nameKey)}"\\s*:\\s*"([A-Za-z_][A-Za-z0-9_.:-]{0,127})"`);
  const guessName = (text: string) => nameRe.exec(text.slice(0, 2000))?.[1];
  return {
    startsAt: (inner, q) => inner.charCodeAt(q) === 0x7b,
    decode: (body, maxDepth) => decodeJsonCall(body, maxDepth, spelling, shape, guessName),
    guessName,
    instruction: `Write each tool call as one JSON object, ${shape}, between the tool-call tags`,
    formName: "a bare JSON object",
    summary: `one JSON object {"${nameKey}": …, "${argumentsKey}": {…}}`,
  };
}

/**
 * Strict JSON, exactly the name and arguments keys, arguments an object (or a JSON string holding one).
 * @param maxDepth deepest nesting of the arguments (the arguments object is depth 1; see ParseLimits)
 */
function decodeJsonCall(body: string, maxDepth: number, spelling: JsonCallSpelling, shape: string, guessName: (text: string) => string | undefined): Decoded {
  const { nameKey, argumentsKey } = spelling;
  let value: unknown;
  try {
    value = JSON.parse(body); // JSON allows the framing whitespace around the object
  } catch {
    const text = body.trim();
    const name = guessName(text);
    // The error locator recurses per level: too deep is refused first (the envelope adds one level).
    if (nestsDeeper(text, maxDepth + 1)) return tooDeep(name, maxDepth);
    return decodeFail("invalid_json", describeJsonError(text, name ? `your ${name} call` : "your tool call"), { name });
  }
  if (!isPlainObject(value)) {
    return decodeFail("bad_shape", `A tool call must be one JSON object, ${shape}; got ${kindOf(value)}.`);
  }
  const name = value[nameKey];
  // JSON.parse keeps the last of two equal keys: a call that gives one twice is refused, not half-read.
  const dup = findDuplicateKey(body);
  if (dup) return decodeFail("duplicate_key", duplicateKeyMessage(typeof name === "string" ? name : undefined, dup), { name: typeof name === "string" ? name : undefined });
  if (typeof name !== "string" || name === "") {
    return decodeFail("bad_shape", `The tool call has no "${nameKey}" string. Write ${shape}.`);
  }
  if (!Object.hasOwn(value, argumentsKey)) {
    const hint = Object.hasOwn(value, "parameters") ? ` Use the key "${argumentsKey}", not "parameters".` : ` Give "${argumentsKey}": {} when there are none.`;
    return decodeFail("bad_shape", `Your ${name} call has no "${argumentsKey}" object.${hint}`, { name });
  }
  let keys = 0;
  for (const k in value) if (Object.hasOwn(value, k)) keys++;
  if (keys > 2) {
    const extra = Object.keys(value).filter((k) => k !== nameKey && k !== argumentsKey);
    return decodeFail("bad_shape", `Your ${name} call has keys besides "${nameKey}" and "${argumentsKey}": ${extra.map((k) => JSON.stringify(k)).join(", ")}. Put every argument inside "${argumentsKey}".`, { name });
  }
  let args = value[argumentsKey];
  if (typeof args === "string") {
    try {
      args = JSON.parse(args);
    } catch {
      return decodeFail("bad_shape", `The "${argumentsKey}" of your ${name} call is a string that is not a JSON object; give a JSON object.`, { name });
    }
    const inner = findDuplicateKey(value[argumentsKey] as string);
    if (inner) return decodeFail("duplicate_key", duplicateKeyMessage(name, { key: inner.key, at: inner.at ? `${argumentsKey}.${inner.at}` : argumentsKey }), { name });
  }
  if (!isPlainObject(args)) {
    return decodeFail("bad_shape", `The "${argumentsKey}" of your ${name} call must be a JSON object, got ${kindOf(args)}.`, { name });
  }
  return { ok: true, value: { name, args } };
}

export function tooDeep(name: string | undefined, maxDepth: number): Decoded & { ok: false } {
  const what = name ? `Your ${name} call` : "Your tool call";
  return decodeFail("too_large", `${what} is too large: its arguments are nested deeper than ${maxDepth} levels. Send less in one call.`, { name });
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  return `a ${typeof v}`;
}
