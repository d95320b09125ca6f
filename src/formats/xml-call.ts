// Owns: formats whose body is `<function=NAME>` with one `<parameter=ARG>` block per argument (qwen3coder):
// the format object built from its data, with its render, envelope and tag operations.

import { fail } from "../errors.js";
import { JSON_VALUE_CLOSERS } from "./json-call.js";
import { QWEN3_THINK } from "./qwen3-tokens.js";
import { closerAt, closerRunFrom } from "./xml-closers.js";
import type { FormatData, PastCall, ToolCallFormat, XmlCallSpelling } from "./types.js";

export interface XmlCallSettings extends FormatData {
  spelling: XmlCallSpelling;
}

/** The suffixes of a closing tag, for when its start was forced already. */
const suffixes = (tag: string) => Array.from({ length: tag.length - 1 }, (_, i) => tag.slice(i + 1));

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The template iterates the arguments, so it needs an object: JSON text is decoded once. */
function argumentsObject(call: PastCall): Record<string, unknown> {
  if (typeof call.arguments !== "string") return call.arguments;
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.arguments);
  } catch {
    fail("invalid_messages", `arguments of the past call to "${call.name}" are not valid JSON`);
  }
  if (!isObject(parsed)) fail("invalid_messages", `arguments of the past call to "${call.name}" are not a JSON object`);
  return parsed;
}

/**
 * Which function and parameter tags are still open at the end of `inner`, walking its tags in order (a drifted
 * closer such as `</parameter1>` counts as the tag it stands for when only closers follow it): an open tag
 * (name and `>` on one line) pushes, a close tag pops only when it matches the top (inside a value, a stray close
 * is text). A nested `<function=…>…</function>` quoted in a value leaves the value's parameter open (class 1). A
 * line-start `<parameter=NAME>` for a name this function was not given yet ends the open value first (a missing
 * `</parameter>`), as the value reader does (`src/parse/qwen3coder.ts`); a name it was given is quoted text.
 */
function openTags(inner: string, s: XmlCallSpelling): Array<"function" | "parameter"> {
  const stack: Array<"function" | "parameter"> = [];
  const given: Array<Set<string>> = []; // per open function: the parameters it was given
  for (let k = inner.indexOf("<"); k >= 0; k = inner.indexOf("<", k + 1)) {
    if (inner.startsWith(s.functionOpen, k)) {
      if (opensOnItsLine(inner, k + s.functionOpen.length, s.tagEnd)) {
        stack.push("function");
        given.push(new Set());
      }
    } else if (inner.startsWith(s.parameterOpen, k)) {
      const name = nameOnItsLine(inner, k + s.parameterOpen.length, s.tagEnd);
      if (name === undefined) continue;
      const names = given[given.length - 1];
      if (stack[stack.length - 1] === "parameter" && names && !names.has(name) && atLineStart(inner, k)) stack.pop();
      names?.add(name);
      stack.push("parameter");
    } else if (inner.startsWith(s.functionClose, k)) {
      if (stack[stack.length - 1] === "function") {
        stack.pop();
        given.pop();
      }
    } else if (inner.startsWith(s.parameterClose, k)) {
      if (stack[stack.length - 1] === "parameter") stack.pop();
    } else if (stack[stack.length - 1] === "parameter") {
      // A drifted closer (`</parameter1>`) followed only by closers up to here ends the value (issue 44).
      const c = closerAt(s, inner, k);
      if (c?.drifted && closerRunFrom(s, inner, c.end)) {
        stack.pop();
        if (c.kind === "function" && stack[stack.length - 1] === "function") {
          stack.pop();
          given.pop();
        }
      }
    }
  }
  return stack;
}

/** The name between `from` and the tag's end (`tagEnd`) when the tag ends before the line does. */
function nameOnItsLine(inner: string, from: number, tagEnd: string): string | undefined {
  return opensOnItsLine(inner, from, tagEnd) ? inner.slice(from, inner.indexOf(tagEnd, from)) : undefined;
}

/** Only spaces and tabs lie between `at` and the previous newline (or the start). */
function atLineStart(inner: string, at: number): boolean {
  for (let k = at - 1; k >= 0; k--) {
    const c = inner.charCodeAt(k);
    if (c === 10) return true;
    if (c !== 32 && c !== 9) return false;
  }
  return true;
}

/** A name follows `from` and the tag ends (`tagEnd`) before the line does. */
function opensOnItsLine(inner: string, from: number, tagEnd: string): boolean {
  const gt = inner.indexOf(tagEnd, from);
  if (gt <= from) return false;
  const nl = inner.indexOf("\n", from);
  return nl < 0 || gt < nl;
}

/** Inside a parameter's value: a close tag here is quoted text. */
function insideValue(inner: string, s: XmlCallSpelling): boolean {
  return openTags(inner, s).includes("parameter");
}

/** A whole function body: it ends with the function's close tag and leaves nothing open. */
function wholeFunction(inner: string, s: XmlCallSpelling): boolean {
  return inner.trimEnd().endsWith(s.functionClose) && openTags(inner, s).length === 0;
}

/** The format object for an XML-function format. String values are raw text; every other type is JSON. */
export function xmlCallFormat(settings: XmlCallSettings): ToolCallFormat {
  const { spelling: s, ...data } = settings;
  const { open, close, framing } = data;
  const think = settings.think ?? QWEN3_THINK;
  const jsonValue = settings.nonStringValues === "json" ? () => true : (value: unknown) => value !== null && typeof value === "object";
  return Object.freeze({
    ...data,
    templateMarkers: Object.freeze([...settings.templateMarkers]),
    templateVariables: Object.freeze([...(settings.templateVariables ?? [])]),
    think: Object.freeze({ ...(settings.think ?? QWEN3_THINK) }),
    firstCallSeparator: settings.firstCallSeparator ?? data.blockSeparator,
    stringText: "raw",
    // A raw value ends at its framing newline and closing tag; JSON-typed values close as in JSON.
    valueClosers: Object.freeze([
      framing + s.parameterClose,
      framing + s.functionClose,
      ...suffixes(s.parameterClose),
      ...suffixes(s.functionClose),
      ...JSON_VALUE_CLOSERS,
    ]),
    body: Object.freeze({ decoder: "xml-function", spelling: Object.freeze({ ...s }) }),
    bareBlock: Object.freeze({ open: s.functionOpen, close: s.functionClose, label: `${s.functionOpen}…${s.tagEnd}` }),
    renderCall(out, call, print) {
      out.markup(open.text + framing + s.functionOpen);
      out.content(call.name);
      out.markup(s.tagEnd + framing);
      for (const [key, value] of Object.entries(argumentsObject(call))) {
        const text = typeof value !== "string" && jsonValue(value) ? print.json(value) : print.str(value);
        out.markup(s.parameterOpen);
        out.content(key);
        out.markup(s.tagEnd + framing);
        out.content(text);
        out.markup(framing + s.parameterClose + framing);
      }
      out.markup(s.functionClose + framing + close.text);
    },
    bodyShape: (name, args) => `${s.functionOpen}${name}${s.tagEnd}${args}${s.functionClose}`,
    bodyAround: (name) => ({ before: `${s.functionOpen}${name}${s.tagEnd}${framing}`, after: s.functionClose }),
    startsBody(inner, atEnd) {
      let q = 0;
      while (q < inner.length && " \t\r\n".includes(inner[q]!)) q++;
      if (inner.startsWith(s.functionOpen, q)) return true;
      return atEnd === true && q < inner.length && s.functionOpen.startsWith(inner.slice(q));
    },
    // Inside a value, a close tag is text (class 1); the scanner falls back to the first such close when no
    // later close ends the block.
    closesAt: (inner) => !insideValue(inner, s),
    valuesSpanLines: true,
    bodyComplete: (inner) => wholeFunction(inner, s),
    parameterTags: () => ({ open: s.parameterOpen, end: s.tagEnd + framing, close: framing + s.parameterClose + framing }),
    tagWords: () => [
      open.text,
      close.text,
      think.open.text,
      think.close.text,
      s.functionOpen,
      s.functionClose,
      s.parameterOpen,
      s.parameterClose,
    ],
  } satisfies ToolCallFormat);
}
