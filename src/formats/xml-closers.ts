// Owns: recognizing the close tags of an XML-function spelling as models really write them (issue 44): the
// exact `</parameter>` and `</function>`, drifted spellings of them (`</parameter1>`, `</parameter_function>`,
// `</function_invocation>`, a cut `</parameter`), runs of closers up to the body's end, and whether a value's
// text leaves a tag of its own open. Read by the block walk (xml-call.ts) and the value reader
// (src/parse/qwen3coder.ts), so both judge a closer alike.

import type { XmlCallSpelling } from "./types.js";

/** Most characters a drifted closer may put between its stem (`</parameter`) and its `>`. */
const MAX_DRIFT = 24;

/** One close tag at some offset: which tag it closes, where it ends, and whether it was drifted. */
export interface Closer {
  kind: "parameter" | "function";
  /** Offset just past the tag. */
  end: number;
  /** Spelled otherwise than the template's tag (`</parameter1>`, `</parameter` cut before `>`). */
  drifted: boolean;
}

const stemOf = (tag: string, tagEnd: string) => (tag.endsWith(tagEnd) ? tag.slice(0, tag.length - tagEnd.length) : tag);

/**
 * The closer at `at`, exact or drifted: the stem of `</parameter>` or `</function>`, then up to MAX_DRIFT
 * characters other than `<`, `>` and a newline, then the tag end; or the stem cut right before a newline or
 * the end of the text. Undefined when no closer starts at `at`.
 */
export function closerAt(s: XmlCallSpelling, text: string, at: number): Closer | undefined {
  if (text.startsWith(s.parameterClose, at)) return { kind: "parameter", end: at + s.parameterClose.length, drifted: false };
  if (text.startsWith(s.functionClose, at)) return { kind: "function", end: at + s.functionClose.length, drifted: false };
  for (const [kind, tag] of [["parameter", s.parameterClose], ["function", s.functionClose]] as const) {
    const stem = stemOf(tag, s.tagEnd);
    if (stem === tag || !text.startsWith(stem, at)) continue;
    const from = at + stem.length;
    const stop = Math.min(text.length, from + MAX_DRIFT + s.tagEnd.length);
    for (let k = from; k <= stop; k++) {
      if (k === text.length || text[k] === "\n" || text[k] === "\r") {
        // A stem cut before the line ends: `</parameter` then a newline (or the end).
        return k === from ? { kind, end: k, drifted: true } : undefined;
      }
      if (text.startsWith(s.tagEnd, k)) return { kind, end: k + s.tagEnd.length, drifted: true };
      if (text[k] === "<" || text[k] === ">") return undefined;
    }
  }
  return undefined;
}

/** The closers of a run: from `at`, whitespace and closers only up to the end of `text`. */
export interface CloserRun {
  closers: Closer[];
}

/**
 * When everything from `at` to the end of `text` is whitespace and closers (exact or drifted), those closers;
 * otherwise undefined. An empty run (only whitespace) is a run with no closers.
 */
export function closerRunFrom(s: XmlCallSpelling, text: string, at: number): CloserRun | undefined {
  const closers: Closer[] = [];
  let k = at;
  for (;;) {
    while (k < text.length && " \t\r\n".includes(text[k]!)) k++;
    if (k >= text.length) return { closers };
    const c = closerAt(s, text, k);
    if (!c) return undefined;
    closers.push(c);
    k = c.end;
  }
}

/**
 * Whether `text[from, to)` (a value's text) opens a function or parameter tag that it does not close: the
 * closer that follows it then belongs to that quoted block, not to the value (docs/parser.md, class 1).
 */
export function leavesTagOpen(s: XmlCallSpelling, text: string, from: number, to: number): boolean {
  const stack: Array<"function" | "parameter"> = [];
  for (let k = text.indexOf("<", from); k >= 0 && k < to; k = text.indexOf("<", k + 1)) {
    if (text.startsWith(s.functionOpen, k) || text.startsWith(s.parameterOpen, k)) {
      const fn = text.startsWith(s.functionOpen, k);
      const nameFrom = k + (fn ? s.functionOpen.length : s.parameterOpen.length);
      const gt = text.indexOf(s.tagEnd, nameFrom);
      const nl = text.indexOf("\n", nameFrom);
      if (gt > nameFrom && gt < to && (nl < 0 || gt < nl)) stack.push(fn ? "function" : "parameter");
    } else if (text.startsWith(s.parameterClose, k) || text.startsWith(s.functionClose, k)) {
      const kind = text.startsWith(s.parameterClose, k) ? "parameter" : "function";
      const top = stack.lastIndexOf(kind);
      if (top >= 0) stack.length = top;
    }
  }
  return stack.length > 0;
}
