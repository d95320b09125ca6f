// Owns: the `xml-function` decoder (qwen3coder and its variants): a function block `<function=NAME>` with
// `<parameter=ARG>` values, child tags (`<path>…</path>`) or one JSON object as the body; duplicates, mixed
// forms and two functions are errors.
//
// Where a value ends (literal tags inside a string value stay in the value; docs/parser.md, class 1):
// - a candidate end is a `</parameter>` followed by whitespace and then a tag, a `{` or the end; or, for a
//   missing `</parameter>`, the next `<parameter=NAME>` at the start of a line, or a `</function>` followed only
//   by whitespace (or another function);
// - the value ends at the first *plausible* candidate: what follows it is `</function>` ending the body, the
//   body's end, or a `<parameter=NAME>` for a parameter the function takes (when its tool is known) and that
//   was not given before this one. A candidate followed by anything else is quoted text: a nested
//   `<function=…>…</function>` block, a close followed by an earlier parameter or by prose;
// - with no plausible candidate, the first candidate (so a malformed body fails as it always did);
// - a child tag `<NAME>` ends at `</NAME>` followed by whitespace and a tag, a `{` or the end;
// - surplus and drifted closers (issue 44): a closer (`</parameter>`, `</function>`, or a drifted spelling such
//   as `</parameter1>`) ends the value when everything after it up to the body's end is closers and whitespace
//   and the value leaves no tag of its own open; the closers beyond the function's close are surplus
//   (`surplus_closer`), a drifted one is read as the tag it stands for (`drifted_marker`). A drifted parameter
//   closer followed by a plausible `<parameter=NAME>` ends the value too.
// Exactly one framing newline is stripped on each side of a value, and an indented close tag's indentation
// when the open tag has the same indentation (class 8).

import type { XmlCallSpelling } from "../formats/index.js";
import { jsonObjectEnd } from "../formats/json-span.js";
import { closerAt, closerRunFrom, leavesTagOpen, type Closer } from "../formats/xml-closers.js";
import type { CallDiagnostic } from "./types.js";
import { describeJsonError } from "./json-errors.js";
import { decodeFail, skipWs, type BodySyntax, type DecodeFailure, type DecodeHints, type Decoded } from "./decoded.js";
import { tooDeep } from "./hermes.js";
import { nestsDeeper } from "./nesting.js";
import { duplicateKeyMessage, findDuplicateKey } from "./duplicate-keys.js";

/** A function or parameter name: letters of any script, digits, `_`, `-`, `.`, `:` (block.ts judges which an API can carry). */
const NAME_CHARS = "[\\p{L}_][\\p{L}\\p{M}\\p{N}_.:-]{0,127}";
const NAME = new RegExp(`^${NAME_CHARS}$`, "u");
const CHILD_OPEN = new RegExp(`<(${NAME_CHARS})>`, "uy");
/** Implausible candidate ends one value scan looks past before it settles for the first (bounds the work). */
const MAX_SKIPPED_CANDIDATES = 64;
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A spelling and the parameter shape its messages show. */
interface Tags extends XmlCallSpelling {
  paramShape: string;
}

/** The XML-function decoder (`xml-function`) for one spelling: its decode, its name guess and its messages. */
export function xmlFunctionSyntax(spelling: XmlCallSpelling): BodySyntax {
  const X: Tags = { ...spelling, paramShape: `${spelling.parameterOpen}NAME${spelling.tagEnd}\\nVALUE\\n${spelling.parameterClose}` };
  const nameRe = new RegExp(`^${esc(X.functionOpen)}(${NAME_CHARS})${esc(X.tagEnd)}`, "u");
  return {
    startsAt: (inner, q) => inner.startsWith(X.functionOpen, q),
    decode: (body, maxDepth, hints) => decodeXmlFunction(X, body, maxDepth, hints),
    guessName: (text) => nameRe.exec(text)?.[1],
    instruction: `Write the call as ${X.functionOpen}TOOL_NAME${X.tagEnd} with one ${X.parameterOpen}NAME${X.tagEnd} per argument and ${X.functionClose}`,
    formName: `the ${X.functionOpen}…${X.tagEnd} form`,
    summary: `${X.functionOpen}TOOL_NAME${X.tagEnd}…${X.functionClose}`,
  };
}

/** @param maxDepth deepest nesting of the arguments (a JSON body is the arguments object: depth 1) */
function decodeXmlFunction(X: Tags, body: string, maxDepth: number, hints: DecodeHints | undefined): Decoded {
  let i = skipWs(body, 0);
  if (!body.startsWith(X.functionOpen, i)) {
    const incomplete = X.functionOpen.startsWith(body.slice(i));
    return decodeFail("bad_shape", `Write the call as ${X.functionOpen}TOOL_NAME${X.tagEnd} followed by one ${X.paramShape} per argument and ${X.functionClose}.`, { incomplete });
  }
  const nameStart = i + X.functionOpen.length;
  const gt = body.indexOf(X.tagEnd, nameStart);
  const nl = body.indexOf("\n", nameStart);
  if (gt < 0 || (nl >= 0 && nl < gt)) {
    return decodeFail("bad_shape", `Close the function name with "${X.tagEnd}": ${X.functionOpen}TOOL_NAME${X.tagEnd}.`, { incomplete: gt < 0 });
  }
  const name = body.slice(nameStart, gt);
  if (!NAME.test(name)) {
    return decodeFail("bad_shape", `"${name.slice(0, 80)}" is not a valid tool name; write ${X.functionOpen}TOOL_NAME${X.tagEnd} with the exact name.`);
  }
  i = gt + X.tagEnd.length;
  const first = skipWs(body, i);
  const repairs: CallDiagnostic[] = [];
  const fn = body[first] === "{" ? jsonBody(X, body, first, name, maxDepth) : tagBody(X, body, i, name, hints, repairs);
  if (!fn.ok) return fn;
  const after = skipWs(body, fn.end);
  const surplus = after < body.length ? closerRunFrom(X, body, after) : undefined;
  if (surplus) for (const c of surplus.closers) repairs.push(surplusCloser(body, after, c));
  else if (after < body.length) {
    if (body.startsWith(X.functionOpen, after)) {
      return decodeFail("multiple_functions", `One tool call holds one function. Close the tool call after ${X.functionClose} and put the next function in a tool call of its own.`, { name });
    }
    return decodeFail("bad_shape", `Unexpected text after ${X.functionClose} in your ${name} call; nothing may follow it inside the tool call.`, { name });
  }
  const value = fn.args ? { name, args: fn.args } : { name, texts: fn.texts };
  return { ok: true, value: repairs.length > 0 ? { ...value, repairs } : value };
}

/** The diagnostic for a closer past the function's close (or a drifted function close read as one). */
function surplusCloser(body: string, runStart: number, c: Closer): CallDiagnostic {
  const text = closerText(body, runStart, c);
  return { code: "surplus_closer", message: `surplus ${text} after the function's close ignored` };
}

/** The text of closer `c`, found in the run that starts at `runStart`. */
function closerText(body: string, runStart: number, c: Closer): string {
  const lt = body.lastIndexOf("<", c.end - 1);
  return body.slice(Math.max(lt, runStart), c.end);
}

function driftedMarker(X: Tags, text: string, c: Closer): CallDiagnostic {
  const meant = c.kind === "function" ? X.functionClose : c.fused ? X.parameterClose + X.functionClose : X.parameterClose;
  return { code: "drifted_marker", message: `drifted ${JSON.stringify(text)} read as ${meant}` };
}

type Body =
  | { ok: true; end: number; args?: Record<string, unknown>; texts?: Array<[string, string]> }
  | { ok: false; error: DecodeFailure };

function jsonBody(X: Tags, body: string, start: number, name: string, maxDepth: number): Body {
  const end = jsonObjectEnd(body, start);
  // Refused before JSON.parse's error is located (that recurses per level); valid deep JSON is caught later too.
  if (nestsDeeper(end < 0 ? body.slice(start) : body.slice(start, end), maxDepth)) return tooDeep(name, maxDepth);
  if (end < 0) {
    const closed = body.indexOf(X.functionClose, start) >= 0;
    return closed
      ? decodeFail("invalid_json", `The JSON object in your ${name} call is not closed: its braces or quotes do not balance.`, { name })
      : decodeFail("bad_shape", `Your ${name} call ends before ${X.functionClose}.`, { name, incomplete: true });
  }
  const json = body.slice(start, end);
  let args: unknown;
  try {
    args = JSON.parse(json);
  } catch {
    return decodeFail("invalid_json", describeJsonError(json, `the JSON body of your ${name} call`), { name });
  }
  const dup = findDuplicateKey(json);
  if (dup) return decodeFail("duplicate_key", duplicateKeyMessage(name, dup), { name });
  const rest = skipWs(body, end);
  if (body.startsWith(X.functionClose, rest)) return { ok: true, end: rest + X.functionClose.length, args: args as Record<string, unknown> };
  if (rest >= body.length) return decodeFail("bad_shape", `Close your ${name} call with ${X.functionClose}.`, { name, incomplete: true });
  if (body[rest] === "<") {
    return decodeFail("mixed_forms", `Your ${name} call mixes a JSON body with tags. Give the arguments one way: one ${X.paramShape} per argument.`, { name });
  }
  return decodeFail("invalid_json", `Unexpected text after the JSON body of your ${name} call; close it with ${X.functionClose}.`, { name });
}

function tagBody(X: Tags, body: string, from: number, name: string, hints: DecodeHints | undefined, repairs: CallDiagnostic[]): Body {
  const takes = (param: string) => hints?.takes?.(name, param) ?? true;
  const texts: Array<[string, string]> = [];
  const seen = new Set<string>();
  let form: "parameter" | "child" | undefined;
  let p = from;
  let fused = false; // the last value ended with a drifted closer that fuses in the function's (`</parameter_function>`)
  for (;;) {
    const q = skipWs(body, p);
    if (q >= body.length && fused) return { ok: true, end: q, texts };
    if (q >= body.length) return decodeFail("bad_shape", `Close your ${name} call with ${X.functionClose}.`, { name, incomplete: true });
    if (body.startsWith(X.functionClose, q)) return { ok: true, end: q + X.functionClose.length, texts };
    const stray = closerAt(X, body, q);
    if (stray) {
      const ended = endOfBody(X, body, q, repairs);
      if (ended !== undefined) return { ok: true, end: ended, texts };
      // A parameter closer between parameters, before the next one: surplus (or drifted), skipped.
      if (stray.kind === "parameter" && body.startsWith(X.parameterOpen, skipWs(body, stray.end))) {
        const text = body.slice(q, stray.end);
        repairs.push(stray.drifted ? driftedMarker(X, text, stray) : { code: "surplus_closer", message: `surplus ${text} between parameters ignored` });
        p = stray.end;
        continue;
      }
    }
    let arg: string;
    let valueStart: number;
    let value: ValueEnd | undefined;
    let indent = "";
    if (body.startsWith(X.parameterOpen, q)) {
      if (form === "child") return mixed(X, name);
      form = "parameter";
      const nameStart = q + X.parameterOpen.length;
      const gt = body.indexOf(X.tagEnd, nameStart);
      const nl = body.indexOf("\n", nameStart);
      if (gt < 0 || (nl >= 0 && nl < gt)) {
        return decodeFail("bad_shape", `Close the parameter name with "${X.tagEnd}" in your ${name} call: ${X.paramShape}.`, { name, incomplete: gt < 0 });
      }
      arg = body.slice(nameStart, gt);
      if (!NAME.test(arg)) return decodeFail("bad_shape", `"${arg.slice(0, 80)}" is not a valid parameter name in your ${name} call.`, { name });
      valueStart = gt + X.tagEnd.length;
      value = parameterEnd(X, body, valueStart, { earlier: seen, takes });
      indent = lineIndent(body, q);
    } else if (body[q] === "<" && matchChild(body, q)) {
      if (form === "parameter") return mixed(X, name);
      form = "child";
      arg = matchChild(body, q)!;
      valueStart = q + arg.length + 2;
      value = childEnd(body, valueStart, arg);
      if (!value) {
        const incomplete = body.indexOf(X.functionClose, valueStart) < 0;
        return decodeFail("bad_shape", `Close <${arg}> with </${arg}> in your ${name} call.`, { name, incomplete });
      }
    } else if (body[q] === "{") {
      return form ? mixed(X, name) : decodeFail("bad_shape", `Unexpected "{" in your ${name} call.`, { name });
    } else {
      const what = form ? "between parameters" : `after ${X.functionOpen}${name}${X.tagEnd}`;
      return decodeFail("bad_shape", `Unexpected text ${what} in your ${name} call. Give each argument as ${X.paramShape}.`, { name });
    }
    if (!value) return decodeFail("bad_shape", `Your ${name} call ends inside the value of "${arg}".`, { name, incomplete: true });
    const drifted = value.drifted === undefined ? undefined : closerAt(X, body, value.end);
    fused = drifted?.fused === true;
    if (drifted) repairs.push(driftedMarker(X, value.drifted!, drifted));
    if (seen.has(arg)) {
      return decodeFail("duplicate_parameter", `Your ${name} call gives "${arg}" twice. Give each parameter once.`, { name });
    }
    seen.add(arg);
    texts.push([arg, stripFraming(body.slice(valueStart, value.end), indent)]);
    p = value.resume;
  }
}

/** What decides whether a candidate end is plausible: the parameters given before this one, and what the function takes. */
interface ValueContext {
  earlier: ReadonlySet<string>;
  takes(param: string): boolean;
}

/** Where a value ends, where reading resumes, and the drifted closer that ended it (its text), if one did. */
type ValueEnd = { end: number; resume: number; drifted?: string };

/**
 * At `q`, a run of closers up to the body's end that holds a function closer (exact or drifted): the body
 * ends with its first function closer; a drifted one is noted, the closers after it are surplus. Returns the
 * body's end, or undefined when what follows `q` is not such a run.
 */
function endOfBody(X: Tags, body: string, q: number, repairs: CallDiagnostic[]): number | undefined {
  const run = closerRunFrom(X, body, q);
  const close = run?.closers.findIndex((c) => c.kind === "function") ?? -1;
  if (!run || close < 0) return undefined;
  let start = q;
  run.closers.forEach((c, k) => {
    const text = closerText(body, start, c);
    if (k === close) {
      if (c.drifted) repairs.push(driftedMarker(X, text, c));
    } else if (k < close) {
      repairs.push(c.drifted ? driftedMarker(X, text, c) : { code: "surplus_closer", message: `surplus ${text} before the function's close ignored` });
    } else repairs.push({ code: "surplus_closer", message: `surplus ${text} after the function's close ignored` });
    start = c.end;
  });
  return body.length;
}

/**
 * Whether the closer that ends at `after` (it starts at `at`) closes the value that starts at `from` because only
 * closers follow it up to the body's end, and the value leaves no tag of its own open (issue 44). A function
 * closer standing for a missing `</parameter>` does not when a parameter closer follows it: that closer ends the
 * value, and the function closer is the value's own text (a template being written).
 */
function closesBeforeSurplus(X: Tags, body: string, from: number, at: number, after: number): boolean {
  const run = closerRunFrom(X, body, after);
  if (!run || leavesTagOpen(X, body, from, at)) return false;
  return closerAt(X, body, at)?.kind !== "function" || run.closers.every((c) => c.kind === "function");
}

/** Where a `<parameter=…>` value ends and where parsing resumes; undefined when the body ends first. */
function parameterEnd(X: Tags, body: string, from: number, ctx: ValueContext): ValueEnd | undefined {
  let first: ValueEnd | undefined;
  let skipped = 0;
  for (let j = body.indexOf("<", from); j >= 0; j = body.indexOf("<", j + 1)) {
    let found: ValueEnd | undefined;
    let plausible = false;
    if (body.startsWith(X.parameterClose, j)) {
      const after = j + X.parameterClose.length;
      if (endsValue(body, after)) {
        found = { end: j, resume: after };
        plausible = followsPlausibly(X, body, after, ctx) || closesBeforeSurplus(X, body, from, j, after);
      }
    } else if (body.startsWith(X.parameterOpen, j)) {
      if (atLineStart(body, j, from) && looksLikeParameterOpen(X, body, j)) {
        found = { end: j, resume: j };
        plausible = plausibleParameter(X, body, j, ctx);
      }
    } else if (body.startsWith(X.functionClose, j)) {
      const r = skipWs(body, j + X.functionClose.length);
      if (r >= body.length || body.startsWith(X.functionOpen, r) || closesBeforeSurplus(X, body, from, j, j + X.functionClose.length)) {
        found = { end: j, resume: j };
        plausible = true;
      }
    } else {
      const c = closerAt(X, body, j);
      if (c?.drifted && drifts(X, body, from, j, c, ctx)) {
        found = { end: j, resume: c.kind === "parameter" ? c.end : j, drifted: body.slice(j, c.end) };
        plausible = true;
      }
    }
    if (!found) continue;
    if (plausible) return found;
    first ??= found;
    if (++skipped >= MAX_SKIPPED_CANDIDATES) break;
  }
  return first;
}

/**
 * A drifted closer ends the value when only closers follow it (and the value leaves no tag open), or, for a
 * parameter closer, when a line-start `<parameter=NAME>` the function may take next follows it.
 */
function drifts(X: Tags, body: string, from: number, at: number, c: Closer, ctx: ValueContext): boolean {
  if (closesBeforeSurplus(X, body, from, at, c.end)) return true;
  if (c.kind !== "parameter") return false;
  const r = skipWs(body, c.end);
  return body.startsWith(X.parameterOpen, r) && atLineStart(body, r, from) && plausibleParameter(X, body, r, ctx);
}

/**
 * After a `</parameter>`: implausible only when a `</function>` follows that does not end the body (a nested
 * block), or a `<parameter=NAME>` for a parameter given before this one. Anything else is a real close (an
 * undeclared parameter, a child tag or a `{` then get their own errors).
 */
function followsPlausibly(X: Tags, body: string, after: number, ctx: ValueContext): boolean {
  const r = skipWs(body, after);
  if (body.startsWith(X.functionClose, r)) {
    const rest = skipWs(body, r + X.functionClose.length);
    return rest >= body.length || body.startsWith(X.functionOpen, rest);
  }
  return !body.startsWith(X.parameterOpen, r) || !ctx.earlier.has(parameterNameAt(X, body, r) ?? "");
}

function parameterNameAt(X: Tags, body: string, at: number): string | undefined {
  const nameStart = at + X.parameterOpen.length;
  const gt = body.indexOf(X.tagEnd, nameStart);
  return gt > nameStart ? body.slice(nameStart, gt) : undefined;
}

/**
 * A `<parameter=NAME>` at a line start inside a value closes it (a missing `</parameter>`) only for a parameter
 * the function takes (when its tool is known) and that was not given before this one.
 */
function plausibleParameter(X: Tags, body: string, at: number, ctx: ValueContext): boolean {
  const param = parameterNameAt(X, body, at);
  return param !== undefined && NAME.test(param) && !ctx.earlier.has(param) && ctx.takes(param);
}

function childEnd(body: string, from: number, arg: string): { end: number; resume: number } | undefined {
  const close = `</${arg}>`;
  for (let j = body.indexOf(close, from); j >= 0; j = body.indexOf(close, j + 1)) {
    const after = j + close.length;
    if (endsValue(body, after)) return { end: j, resume: after };
  }
  return undefined;
}

/** A closing tag ends a value when only whitespace and then a tag, a JSON object (`{"`, `{}`) or the end follow it. */
function endsValue(body: string, after: number): boolean {
  const r = skipWs(body, after);
  if (r >= body.length || body[r] === "<") return true;
  if (body[r] !== "{") return false;
  const k = skipWs(body, r + 1);
  return k >= body.length || body[k] === '"' || body[k] === "}";
}

function matchChild(body: string, at: number): string | undefined {
  CHILD_OPEN.lastIndex = at;
  return CHILD_OPEN.exec(body)?.[1];
}

function looksLikeParameterOpen(X: Tags, body: string, at: number): boolean {
  const nameStart = at + X.parameterOpen.length;
  const gt = body.indexOf(X.tagEnd, nameStart);
  return gt > nameStart && NAME.test(body.slice(nameStart, gt));
}

/** True when only spaces/tabs separate `at` from the previous newline (or from the value's start). */
function atLineStart(body: string, at: number, valueStart: number): boolean {
  for (let k = at - 1; k >= valueStart; k--) {
    const c = body[k];
    if (c === "\n") return true;
    if (c !== " " && c !== "\t") return false;
  }
  return true;
}

/** The spaces and tabs before `at` on its line ("" when other text comes first). */
function lineIndent(body: string, at: number): string {
  let k = at;
  while (k > 0 && (body[k - 1] === " " || body[k - 1] === "\t")) k--;
  return k === 0 || body[k - 1] === "\n" ? body.slice(k, at) : "";
}

/**
 * Remove exactly one framing newline (`\n` or `\r\n`) on each side; when the parameter's open tag was indented,
 * a close tag on its own line with that same indentation takes its indentation with it.
 */
export function stripFraming(value: string, indent = ""): string {
  let a = 0;
  let b = value.length;
  if (value.startsWith("\r\n")) a = 2;
  else if (value.startsWith("\n")) a = 1;
  if (indent !== "" && b - a >= indent.length + 1 && value.endsWith("\n" + indent)) b -= indent.length;
  if (b - a >= 2 && value.startsWith("\r\n", b - 2)) b -= 2;
  else if (b - a >= 1 && value[b - 1] === "\n") b -= 1;
  return value.slice(a, b);
}

function mixed(X: Tags, name: string) {
  return decodeFail("mixed_forms", `Your ${name} call mixes ${X.parameterOpen}…${X.tagEnd} tags with other forms. Give every argument as ${X.paramShape}.`, { name });
}
