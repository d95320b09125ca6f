// Owns: decoding a hermes block body: strict JSON, exactly `name` and `arguments`, arguments an object
// (or, the one leniency, a JSON string holding an object, decoded once).

import { hermes, qwen3coder } from "../formats/index.js";
import { describeJsonError } from "./json-errors.js";
import { decodeFail, skipWs, type Decoded } from "./decoded.js";
import { nestsDeeper } from "./nesting.js";

const BODY = hermes.body.kind === "json" ? hermes.body : { nameKey: "name", argumentsKey: "arguments" };
const XML_OPEN = qwen3coder.body.kind === "xml" ? qwen3coder.body.functionOpen : "<function=";
const XML_TAG_END = qwen3coder.body.kind === "xml" ? qwen3coder.body.tagEnd : ">";
const XML_NAME = new RegExp(`^${XML_OPEN.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}([A-Za-z_][A-Za-z0-9_.:-]{0,127})>`);
const SHAPE = `{"${BODY.nameKey}": "TOOL_NAME", "${BODY.argumentsKey}": {…}}`;

/** @param maxDepth deepest nesting of the arguments (the arguments object is depth 1; see ParseLimits) */
export function decodeHermes(body: string, maxDepth: number): Decoded {
  if (body.startsWith(XML_OPEN, skipWs(body, 0))) {
    return decodeFail("bad_shape", `Write each tool call as one JSON object, ${SHAPE}, between the tool-call tags; the ${XML_OPEN}…${XML_TAG_END} form is not used here.`, { name: guessName(body.trim()) });
  }
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
    return decodeFail("bad_shape", `A tool call must be one JSON object, ${SHAPE}; got ${kindOf(value)}.`);
  }
  const name = value[BODY.nameKey];
  if (typeof name !== "string" || name === "") {
    return decodeFail("bad_shape", `The tool call has no "${BODY.nameKey}" string. Write ${SHAPE}.`);
  }
  if (!Object.hasOwn(value, BODY.argumentsKey)) {
    const hint = Object.hasOwn(value, "parameters") ? ` Use the key "${BODY.argumentsKey}", not "parameters".` : ` Give "${BODY.argumentsKey}": {} when there are none.`;
    return decodeFail("bad_shape", `Your ${name} call has no "${BODY.argumentsKey}" object.${hint}`, { name });
  }
  let keys = 0;
  for (const k in value) if (Object.hasOwn(value, k)) keys++;
  if (keys > 2) {
    const extra = Object.keys(value).filter((k) => k !== BODY.nameKey && k !== BODY.argumentsKey);
    return decodeFail("bad_shape", `Your ${name} call has keys besides "${BODY.nameKey}" and "${BODY.argumentsKey}": ${extra.map((k) => JSON.stringify(k)).join(", ")}. Put every argument inside "${BODY.argumentsKey}".`, { name });
  }
  let args = value[BODY.argumentsKey];
  if (typeof args === "string") {
    try {
      args = JSON.parse(args);
    } catch {
      return decodeFail("bad_shape", `The "${BODY.argumentsKey}" of your ${name} call is a string that is not a JSON object; give a JSON object.`, { name });
    }
  }
  if (!isPlainObject(args)) {
    return decodeFail("bad_shape", `The "${BODY.argumentsKey}" of your ${name} call must be a JSON object, got ${kindOf(args)}.`, { name });
  }
  return { ok: true, value: { format: "hermes", name, args } };
}

export function tooDeep(name: string | undefined, maxDepth: number): Decoded & { ok: false } {
  const what = name ? `Your ${name} call` : "Your tool call";
  return decodeFail("too_large", `${what} is too large: its arguments are nested deeper than ${maxDepth} levels. Send less in one call.`, { name });
}

/** The function name a broken body seems to give (for messages only; never used to run anything). */
export function guessName(text: string): string | undefined {
  const m = /"name"\s*:\s*"([A-Za-z_][A-Za-z0-9_.:-]{0,127})"/.exec(text.slice(0, 2000)) ?? XML_NAME.exec(text);
  return m?.[1];
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
