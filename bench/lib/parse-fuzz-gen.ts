// Owns: the structured generator behind the parse fuzz: realistic assistant outputs (text, think blocks, fences
// of 3-8 backticks or tildes, calls in both formats, valid, invalid and mutated, truncation, unicode, partial
// tags) together with an independent oracle. The generator knows where it put every call, so it knows the
// spans no call may come from (inside a fence or a think section), the valid calls that must come out, and
// the invalid ones that must be rejected. It follows DESIGN's rules, not the scanner's code.

import type { ThinkingStart } from "../../dist/parse/options.js";
import { compileValidators } from "../../dist/tools/validators.js";

export type FuzzFormat = "auto" | "hermes" | "qwen3coder";

export interface ExpectedCall {
  start: number;
  end: number;
  name: string;
  args: Record<string, unknown>;
}

export interface FuzzCase {
  text: string;
  thinking: ThinkingStart;
  format: FuzzFormat;
  truncated: boolean;
  /** [start, end) spans inside a fence or reasoning: no emitted call may overlap one. */
  forbidden: Array<[number, number]>;
  /** Valid calls in answer text, in a form the format reads: each must be emitted, with these arguments. */
  expected: ExpectedCall[];
  /** Spans of calls that break a rule (lone surrogate, too deep, unknown tool, …): none may be emitted. */
  mustReject: Array<[number, number]>;
}

export const FUZZ_TOOLS = compileValidators([
  { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
  { name: "write_file", parameters: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } }, required: ["path", "content"] } },
  {
    name: "tally",
    parameters: {
      type: "object",
      properties: { path: { type: "string", pattern: "^(?:[a-z0-9_.-]+/?)+$" }, count: { type: "integer", minimum: 0 }, flags: { type: "array", items: { type: "string" } }, deep: {} },
      required: ["path", "count"],
    },
  },
]);

const WORDS = "the a file test call value parser read write fix line code index src lib path result think tool function".split(" ");
const UNICODE = ["é", "ß", "中文", "😀", "e\u0301", "Ωμέγα", "\u00a0", "🧪🔥", "\uFFFD", "\ud800", "\udfff"];
const PARTIAL_TAGS = ["<tool_", "</tool_ca", "<thi", "</thin", "<func", "<functio", "<|im_end|>", "<", "</", "<tool_call", "</think"];
const INFO = ["", "", "js", "python", " json", "xml", " tool_call", "{.ts}", "  bash  "];
// Mutation pieces never spell a close tag, a think tag or a fence run: those would move the structure itself.
const MUTATION_PIECES = ["}", "]", ",", '"', "\\", "\n", " ", "{", ":", "True", "None", "<parameter=path>", "</parameter>", "<function=read_file>", "</function>", "<tool_call>", "\ud800", "é", "😀", "\uFFFD", "<path>", "1e999", "'"];
const JSON_STRING_VALUES = ["a \"quoted\" word", "back\\slash", "tab\there", "two\nlines", "<tool_call> is text here", "x<y && y>z", "unicode é 中文 😀"];

type Region = "text" | "fence" | "think";
type Rand = () => number;

export function generateCase(r: Rand): FuzzCase {
  return new CaseBuilder(r).build();
}

class CaseBuilder {
  private out = "";
  private readonly forbidden: Array<[number, number]> = [];
  private expected: ExpectedCall[] = [];
  private mustReject: Array<[number, number]> = [];
  private readonly thinking: ThinkingStart;
  private readonly format: FuzzFormat;
  /** thinking "auto" before any think tag: a lone `</think>` would turn everything so far into reasoning. */
  private undecided: boolean;
  /** The end of the `</think>` that decided reasoning: truncation may not cut before it. */
  private minCut = 0;
  /** Calls written in reasoning (outside fences), in order, with whether they are valid calls the format reads. */
  private readonly thinkCalls: Array<{ start: number; end: number; invalid: boolean }> = [];
  /** Think sections as [start, where their `</think>` starts] (Infinity while open): a cut may leave one open. */
  private readonly thinkSpans: Array<[number, number]> = [];

  constructor(private readonly r: Rand) {
    this.thinking = this.pick(["auto", "open", "closed"] as const);
    this.format = this.pick(["auto", "hermes", "qwen3coder"] as const);
    this.undecided = this.thinking === "auto";
  }

  build(): FuzzCase {
    if (this.thinking === "open" || (this.thinking === "auto" && this.chance(0.35))) {
      this.undecided = false;
      // Under "auto" a `<think>` here would come first and make the start answer text.
      this.reasoningBody(this.thinking === "open");
      this.thinkSpans.push([0, Infinity]);
      if (this.thinking === "auto" || this.chance(0.85)) {
        this.thinkSpans[0]![1] = this.out.length;
        this.out += "</think>";
        this.forbidden.push([0, this.out.length]);
        this.minCut = this.out.length;
      } else return this.finish(true);
    }
    const n = this.int(1, 9);
    for (let k = 0; k < n; k++) {
      const last = k === n - 1;
      const roll = this.r();
      if (roll < 0.3) this.text();
      else if (roll < 0.55) this.call("text");
      else if (roll < 0.78) {
        if (!this.fence(last)) return this.finish(false);
      } else if (roll < 0.9) {
        if (!this.thinkBlock(last)) return this.finish(false);
      } else this.loneThinkClose();
    }
    return this.finish(false);
  }

  private finish(endsInThink: boolean): FuzzCase {
    if (endsInThink) this.forbidden.push([0, this.out.length]);
    let text = this.out;
    let truncated = false;
    if (this.chance(0.25) && text.length > this.minCut) {
      const cut = this.int(Math.max(this.minCut, Math.floor(text.length * 0.6)), text.length);
      text = text.slice(0, cut);
      truncated = this.chance(0.7);
      this.expected = this.expected.filter((c) => c.end <= cut);
      this.mustReject = this.mustReject.filter(([, e]) => e <= cut);
    }
    if (this.thinkSpans.some(([s, c]) => s < text.length && text.length <= c)) this.callsEndingThink(text);
    return { text, thinking: this.thinking, format: this.format, truncated, forbidden: this.forbidden, expected: this.expected, mustReject: this.mustReject };
  }

  /**
   * Issue 43: calls that end an unclosed think section (only whitespace between and after them, or a trailing
   * `<think>`: issue 51) may be read as the answer's calls (when valid, unquoted and outside a fence): their spans
   * are no longer forbidden, and the invalid ones among them must still be rejected.
   */
  private callsEndingThink(text: string): void {
    // Issue 51: a trailing `<think>` (the next think block opened after the turn) ends the run like the output's end.
    const trimmed = text.trimEnd();
    const end = trimmed.endsWith("<think>") ? trimmed.length - "<think>".length : text.length;
    let runStart = end;
    for (let k = this.thinkCalls.length - 1; k >= 0; k--) {
      const c = this.thinkCalls[k]!;
      if (c.end > end) continue; // cut off
      if (text.slice(c.end, runStart).trim() !== "") break;
      runStart = c.start;
      if (c.invalid) this.mustReject.push([c.start, c.end]);
    }
    if (runStart === end) return;
    for (const span of this.forbidden) if (span[0] <= runStart && span[1] > runStart) span[1] = runStart;
  }

  // ---- segments --------------------------------------------------------------------------------------------

  private text(): void {
    const parts: string[] = [this.pick(WORDS)];
    for (let k = this.int(0, 12); k > 0; k--) {
      const roll = this.r();
      if (roll < 0.45) parts.push(" " + this.pick(WORDS));
      else if (roll < 0.6) parts.push("\n" + this.pick(WORDS));
      else if (roll < 0.7) parts.push(" " + this.pick(UNICODE));
      else if (roll < 0.8) parts.push(` ${this.pick(PARTIAL_TAGS)} `);
      else if (roll < 0.88) parts.push(` \`${this.pick(WORDS)}\``);
      else if (roll < 0.94) parts.push("\n\n" + this.pick(WORDS));
      else parts.push(` {"name": "read_file", "arguments": {"path": "untagged"}} `);
    }
    this.out += (this.out === "" || this.chance(0.5) ? "" : this.pick([" ", "\n"])) + parts.join("");
  }

  /** Reasoning text: words, calls, fences and nested `<think>` text, never a `</think>`. */
  private reasoningBody(openTags = true): void {
    for (let k = this.int(0, 4); k > 0; k--) {
      const roll = this.r();
      if (roll < 0.4) this.text();
      else if (roll < 0.7) this.call("think");
      else if (roll < 0.9) this.fence(true, "think");
      else if (openTags) this.out += "<think>";
    }
  }

  /** Returns false when the fence was left open (the output ends inside it). */
  private fence(mayBeLast: boolean, region: Region = "text"): boolean {
    const ch = this.chance(0.5) ? "`" : "~";
    const n = this.int(3, 8);
    const start = this.out.length;
    const atStart = start === 0 && region === "text" && this.thinking !== "open";
    this.out += (atStart && this.chance(0.5) ? "" : "\n") + " ".repeat(this.int(0, 3)) + ch.repeat(n) + this.pick(INFO);
    for (let k = this.int(0, 5); k > 0; k--) this.fenceLine(ch, n, region);
    const open = mayBeLast && this.chance(0.25);
    // A closing line needs a newline after it unless nothing follows (text right after it would not close).
    const lastLine = mayBeLast && region === "text" && this.chance(0.1);
    if (!open) this.out += "\n" + " ".repeat(this.int(0, 3)) + ch.repeat(n + this.int(0, 2)) + this.pick(["", " ", "\t", "  "]) + (lastLine ? "" : "\n");
    if (region === "text") this.forbidden.push([start, this.out.length]);
    if (open && region === "text") this.undecided = false; // nothing follows
    return !open || region !== "text";
  }

  /** One line inside a fence: text, a call, or a decoy that must not close it. */
  private fenceLine(ch: string, n: number, region: Region): void {
    const other = ch === "`" ? "~" : "`";
    const roll = this.r();
    const inner: Region = region === "text" ? "fence" : region;
    if (roll < 0.3) this.call(inner, true);
    else if (roll < 0.4 && n > 3) this.out += "\n" + ch.repeat(this.int(3, n - 1));
    else if (roll < 0.5) this.out += "\n" + " ".repeat(this.int(0, 3)) + other.repeat(this.int(3, 9));
    else if (roll < 0.57) this.out += "\n" + ch.repeat(n + this.int(0, 2)) + this.pick(["js", " x", "python"]);
    else if (roll < 0.63) this.out += "\n" + this.pick(["    ", "\t", "     "]) + ch.repeat(n);
    else if (roll < 0.7) this.out += "\n" + this.pick(WORDS) + " " + ch.repeat(n);
    else if (roll < 0.78 && region === "text") {
      // A think tag inside a fence is text; while undecided a `</think>` would decide, so only `<think>` then.
      if (this.undecided) {
        this.out += "\n<think>";
        this.undecided = false;
      } else this.out += "\n" + this.pick(["<think>", "</think>", "<think>x</think>"]);
    } else {
      this.out += "\n";
      this.text();
    }
  }

  /** Returns false when the think section was left open. */
  private thinkBlock(mayBeLast: boolean): boolean {
    const start = this.out.length;
    this.out += "<think>";
    this.undecided = false;
    this.reasoningBody();
    const open = mayBeLast && this.chance(0.3);
    this.thinkSpans.push([start, open ? Infinity : this.out.length]);
    if (!open) this.out += "</think>";
    this.forbidden.push([start, this.out.length]);
    return !open;
  }

  private loneThinkClose(): void {
    this.out += "</think>";
    if (!this.undecided) return; // dropped with a note
    // thinking "auto", no think tag yet: everything so far was reasoning.
    this.undecided = false;
    this.forbidden.push([0, this.out.length]);
    this.expected = [];
    this.minCut = this.out.length;
  }

  // ---- calls -----------------------------------------------------------------------------------------------

  /**
   * One call block. In text, a mutated call keeps its tags intact (so it cannot swallow what follows); inside a
   * fence its text must not end the fence, inside reasoning it must not hold `</think>` (neither does any piece).
   */
  private call(region: Region | "fence", inFence = false): void {
    const kind = this.pick(["json", "json", "xml", "xml", "bare", "child", "string-args"] as const);
    // A bare block the format does not read (hermes) is plain text: a tag or fence in a value would act there.
    const plain = kind === "bare" && !readsAs(kind, this.format);
    // A value may hold a fence only inside a block: in a fence it would close it.
    const { name, args, valid } = this.callArgs(!inFence && !plain, plain);
    const lead = inFence || kind === "bare" ? "\n" + (kind === "bare" ? this.pick(["", "  ", "\t"]) : "") : this.chance(0.5) ? "\n" : "";
    this.out += lead;
    const start = this.out.length;
    let body = renderBody(kind, name, args);
    const mutated = kind !== "bare" && this.chance(0.3);
    if (mutated) body = this.mutate(body);
    const text = kind === "bare" ? body : `<tool_call>${body}</tool_call>`;
    this.out += text;
    const end = this.out.length;
    if (region === "think" && !inFence) this.thinkCalls.push({ start, end, invalid: !mutated && valid === "invalid" });
    if (region !== "text") return;
    if (!mutated && valid === "valid" && readsAs(kind, this.format)) this.expected.push({ start, end, name, args });
    if (!mutated && valid === "invalid") this.mustReject.push([start, end]);
  }

  /**
   * @param fences whether a string value may hold a code fence (not inside a fence: it would close it)
   * @param plain no tag-like text in values (the block is read as text)
   */
  private callArgs(fences: boolean, plain: boolean): { name: string; args: Record<string, unknown>; valid: "valid" | "invalid" | "maybe" } {
    const path = `src/${this.pick(WORDS)}_${this.int(0, 99)}.ts`;
    const roll = this.r();
    if (roll < 0.35) return { name: "read_file", args: { path }, valid: "valid" };
    if (roll < 0.55) return { name: "write_file", args: { path, content: this.contentValue(fences, plain) }, valid: "valid" };
    if (roll < 0.7) return { name: "tally", args: { path, count: this.int(0, 9), flags: [this.pick(WORDS), this.pick(UNICODE.slice(0, 8))] }, valid: "valid" };
    const bad = this.pick(["unknown", "missing", "surrogate-hi", "surrogate-lo", "deep", "pattern", "fffd", "type"] as const);
    switch (bad) {
      case "unknown": return { name: "delete_everything", args: { path }, valid: "invalid" };
      case "missing": return { name: "write_file", args: { path }, valid: "invalid" };
      case "surrogate-hi": return { name: "read_file", args: { path: `a\ud800b` }, valid: "invalid" };
      case "surrogate-lo": return { name: "tally", args: { path, count: 1, flags: ["\udc00"] }, valid: "invalid" };
      case "deep": return { name: "tally", args: { path, count: 1, deep: nest(this.int(33, 60)) }, valid: "invalid" };
      case "pattern": return { name: "tally", args: { path: "a".repeat(this.int(20, 40)) + "!", count: 1 }, valid: "invalid" };
      case "fffd": return { name: "read_file", args: { path: "bad\uFFFDbyte" }, valid: "invalid" };
      case "type": return { name: "tally", args: { path, count: -3 }, valid: "invalid" };
    }
  }

  private contentValue(fences: boolean, plain: boolean): string {
    const lines: string[] = [];
    const extra = fences ? ["```js\nconst x = 1;\n```", "~~~~\ncode\n~~~~"] : [];
    const values = plain ? JSON_STRING_VALUES.filter((v) => !v.includes("<tool_call>")) : JSON_STRING_VALUES;
    for (let k = this.int(1, 4); k > 0; k--) lines.push(this.pick([...values, ...extra, this.pick(WORDS), "  indented", "if (a < b) return;"]));
    return lines.join(this.pick(["\n", " "]));
  }

  private mutate(body: string): string {
    const at = this.int(0, body.length);
    switch (this.pick(["insert", "delete", "duplicate", "cut"] as const)) {
      case "insert": return body.slice(0, at) + this.pick(MUTATION_PIECES) + body.slice(at);
      case "delete": return body.slice(0, at) + body.slice(at + this.int(1, 8));
      case "duplicate": return body.slice(0, at) + body.slice(at, at + this.int(1, 30)) + body.slice(at);
      case "cut": return body.slice(0, at);
    }
  }

  // ---- randomness ------------------------------------------------------------------------------------------

  private int(lo: number, hi: number): number {
    return lo + Math.floor(this.r() * (hi - lo + 1));
  }

  private chance(p: number): boolean {
    return this.r() < p;
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.r() * xs.length)]!;
  }
}

type CallKind = "json" | "xml" | "bare" | "child" | "string-args";

const JSON_KINDS: readonly CallKind[] = ["json", "string-args"];
const XML_KINDS: readonly CallKind[] = ["xml", "bare", "child"];
/** The kinds of block a parser configured for each format reads as calls (DESIGN's rules, written out). */
const READS: Readonly<Record<FuzzFormat, readonly CallKind[]>> = Object.freeze({
  auto: [...JSON_KINDS, ...XML_KINDS],
  hermes: JSON_KINDS,
  qwen3coder: XML_KINDS,
});

/** Whether a parser configured for `format` reads a block of this kind as a call. */
function readsAs(kind: CallKind, format: FuzzFormat): boolean {
  return READS[format].includes(kind);
}

function nest(depth: number): unknown {
  let v: unknown = "leaf";
  for (let k = 0; k < depth; k++) v = k % 2 ? { k: v } : [v];
  return v;
}

/** The template's spelling: json.dumps separators for hermes; raw strings and JSON otherwise for qwen3coder. */
function renderBody(kind: CallKind, name: string, args: Record<string, unknown>): string {
  const json = (v: unknown) => pyJson(v);
  if (kind === "json") return `\n{"name": ${JSON.stringify(name)}, "arguments": ${json(args)}}\n`;
  if (kind === "string-args") return `\n{"name": ${JSON.stringify(name)}, "arguments": ${JSON.stringify(json(args))}}\n`;
  const value = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
  if (kind === "child") {
    return `\n<function=${name}>\n${Object.entries(args).map(([k, v]) => `<${k}>${value(v)}</${k}>\n`).join("")}</function>\n`;
  }
  const params = Object.entries(args).map(([k, v]) => `<parameter=${k}>\n${value(v)}\n</parameter>\n`).join("");
  const fn = `<function=${name}>\n${params}</function>`;
  return kind === "bare" ? fn : `\n${fn}\n`;
}

function pyJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(pyJson).join(", ")}]`;
  if (v && typeof v === "object") return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${pyJson(x)}`).join(", ")}}`;
  return JSON.stringify(v);
}
