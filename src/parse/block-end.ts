// Owns: where a wrapped block ends, and the block's state while the scanner reads it: the text held so far
// (parts, or only a preview past maxBlockChars), where it opened, the first close tag that fell inside a value
// (the fallback end) and how many tags were judged. A close tag quoted inside a value does not end a block, an
// open tag after a whole body does, and an opener followed by prose is text: the format decides (startsBody,
// closesAt, bodyComplete). The scanner (scanner.ts) owns the buffer and the modes; this unit reads and moves
// its cursor (ScanCursor) while a block is open.

import type { ToolCallFormat } from "../formats/index.js";
import type { RawBlock } from "./block.js";
import { partialSuffix } from "./scan-patterns.js";

export interface ScanSink {
  text(text: string): void;
  reasoning(text: string): void;
  /** A think section was entered (reasoning becomes non-null). */
  reasoningSeen(): void;
  /**
   * A block is complete. With `quoted` (a JSON-string format, whose body cannot decode when its close tag was
   * quoted): the sink may refuse a block that does not decode when `quoted()` says the close fell inside a
   * value; it records nothing then and returns false, and the scanner reads on.
   */
  block(block: RawBlock, quoted?: () => boolean): boolean;
  /**
   * Calls that end an unclosed think block (issue 43), after `reasoning`: the sink judges them all and, when every
   * one is valid, emits the reasoning, then the calls (diagnostic `call_in_reasoning`) and returns true; else it
   * records nothing and returns false (the scanner then emits the text as reasoning).
   */
  reasoningCalls(blocks: readonly RawBlock[], reasoning: string): boolean;
  note(note: string): void;
}

export type Mode = "undecided" | "text" | "think" | "fence" | "block" | "bare";

/** The scanner's cursor: its buffer, the buffer's offset in the stream, the scan position in it, and its mode. */
export interface ScanCursor {
  buf: string;
  base: number;
  pos: number;
  mode: Mode;
}

/** What a block's judgement needs to know once: the wrapper tags, the bodies it may hold, the size cap, the sink. */
export interface BlockEndSettings {
  open: string;
  close: string;
  /** The formats whose bodies a block may hold (they decide where a block ends; docs/parser.md). */
  bodies: readonly ToolCallFormat[];
  /** Inner length (UTF-16 units) past which a block is kept only as a preview (too_large). */
  maxBlockChars: number;
  sink: ScanSink;
  /** Why a block opening now is quoted text (untrusted output); undefined: every block is judged as a call. */
  quoteAt?: () => string | undefined;
}

const RAW_PREVIEW = 256;
/**
 * Open and close tags inside one block whose body is judged (each judgement reads the block so far): past this,
 * a close tag ends the block (at the first quoted close, if any) and an open tag is text. Bounds the work a
 * hostile output full of tags can cause to linear.
 */
const MAX_TAG_CHECKS = 32;
/** How far past an open tag inside a block the scanner looks for the start of a body (whitespace included). */
const BODY_LOOKAHEAD = 64;

export class BlockEnd {
  private parts: string[] = [];
  private partsLen = 0;
  private overflow = false;
  private blockStart = 0;
  /** Offset in the block's inner text of the first close tag that fell inside a value (the fallback end). */
  private quotedClose: number | undefined;
  /** Absolute offset after the quoted close while its value must end on that line (JSON strings); undefined otherwise. */
  private quotedLine: number | undefined;
  private quotedBy: ToolCallFormat | undefined;
  private tagChecks = 0;
  /** Why the open block is quoted text (untrusted output only). */
  private quote: string | undefined;
  private readonly quoteAt: (() => string | undefined) | undefined;
  private readonly open: string;
  private readonly close: string;
  private readonly bodies: readonly ToolCallFormat[];
  private readonly maxBlockChars: number;
  private readonly sink: ScanSink;

  constructor(private readonly c: ScanCursor, settings: BlockEndSettings) {
    this.open = settings.open;
    this.close = settings.close;
    this.bodies = settings.bodies;
    this.maxBlockChars = settings.maxBlockChars;
    this.sink = settings.sink;
    this.quoteAt = settings.quoteAt;
  }

  /**
   * Inside a wrapped block. A close tag ends it unless it falls inside a value (then it is quoted text, and the
   * first such close is the fallback end). An open tag ends it when its body is already whole (a missing close
   * tag), restarts it when what came before is not a body at all (prose that named the tag), and is quoted text
   * otherwise. A block with an oversized or blocked body falls back to its first close.
   */
  scan(final: boolean): boolean {
    if (this.overflow) return this.collectUntil(this.close, final, false);
    const { buf } = this.c;
    const { open, close } = this;
    for (;;) {
      const jc = buf.indexOf(close, this.c.pos);
      const jo = buf.indexOf(open, this.c.pos);
      const j = jo < 0 || (jc >= 0 && jc < jo) ? jc : jo;
      if (this.quoteLineBroke(j >= 0 ? j : buf.length)) return true;
      if (j < 0) {
        const hold = final ? buf.length : Math.min(partialSuffix(buf, this.c.pos, close), partialSuffix(buf, this.c.pos, open));
        return this.keep(hold);
      }
      const isClose = j === jc;
      const tagEnd = j + (isClose ? close.length : open.length);
      const judged = this.tagChecks < MAX_TAG_CHECKS;
      let opensCall = false;
      if (judged && !isClose) {
        const next = this.callAfter(tagEnd, final);
        if (next === undefined) return this.keep(j);
        opensCall = next;
      }
      this.tagChecks++;
      if (opensCall && this.quotedClose !== undefined) {
        // An opener still inside the string that quoted the close (a JSON string cannot span lines, so it is on
        // that line) is that string's text: a value may quote `</tool_call>\n<tool_call>{…}` (issue 52, row 17).
        const by = this.quotedBy;
        if (by && !by.valuesSpanLines && !by.closesAt(this.innerUpTo(j))) {
          if (this.keep(tagEnd)) return true;
          continue;
        }
        // Otherwise a call starts after the quoted close: that close was real, and the next call is never swallowed.
        this.fallBackToQuotedClose();
        return true;
      }
      if (!judged && !isClose) {
        if (this.keep(tagEnd)) return true;
        continue;
      }
      if (!judged && this.quotedClose !== undefined) {
        this.fallBackToQuotedClose();
        return true;
      }
      const inner = judged ? this.innerUpTo(j) : "";
      const body = judged ? this.bodyOf(inner) : undefined;
      if (isClose) {
        // A body that cannot decode with its close quoted (JSON strings) is judged first: the quote check runs
        // only for a block that fails, so valid blocks cost nothing extra.
        const fits = this.partsLen + (j - this.c.pos) <= this.maxBlockChars; // else too_large, with only a preview
        if (body && !body.valuesSpanLines && this.quotedClose === undefined && fits) {
          if (this.tryFinish(j, tagEnd, () => !body.closesAt(inner))) return true;
        } else if (!body || body.closesAt(inner)) {
          this.append(this.c.pos, j);
          this.c.pos = tagEnd;
          this.finish(true, this.c.base + this.c.pos);
          return true;
        }
        if (this.quotedClose === undefined) {
          this.quotedClose = this.partsLen + (j - this.c.pos);
          this.quotedBy = body;
          this.quotedLine = body.valuesSpanLines ? undefined : this.c.base + tagEnd;
        }
      } else if (this.quotedClose === undefined) {
        if (inner.trim() === "") {
          this.sink.note(`stray ${open} without a body dropped`);
          this.start(j, "block");
          this.c.pos = tagEnd;
          return true;
        }
        if (!body && !brokenCall(inner)) {
          this.replayProse();
          return true;
        }
        if (!body && !opensCall) {
          if (this.keep(tagEnd)) return true;
          continue;
        }
        if (!body || body.bodyComplete(inner)) {
          this.append(this.c.pos, j);
          this.finish(false, this.c.base + j);
          this.start(j, "block");
          this.c.pos = tagEnd;
          return true;
        }
      }
      if (this.keep(tagEnd)) return true;
    }
  }

  /**
   * Keep the block's text up to `to` (a quoted tag, or what the buffer holds). Returns true when that would
   * make a block with a quoted close too large: it fell back to that close instead.
   */
  private keep(to: number): boolean {
    if (this.quotedClose !== undefined && this.partsLen + (to - this.c.pos) > this.maxBlockChars) {
      this.fallBackToQuotedClose();
      return true;
    }
    this.append(this.c.pos, to);
    this.c.pos = to;
    return false;
  }

  /**
   * A close quoted inside a value that cannot span lines: if the line ends (before `limit`) while still inside
   * that value, the close was real; fall back to it. Returns true when it did.
   */
  private quoteLineBroke(limit: number): boolean {
    if (this.quotedLine === undefined) return false;
    const nl = this.c.buf.indexOf("\n", Math.max(this.c.pos, this.quotedLine - this.c.base));
    if (nl < 0 || nl >= limit) return false;
    this.quotedLine = undefined;
    if (this.quotedBy!.closesAt(this.innerUpTo(nl))) return false;
    this.fallBackToQuotedClose();
    return true;
  }

  /**
   * Whether a call starts after the open tag ending at `from`: a body in a known form, or a tag (a broken call).
   * Only the first BODY_LOOKAHEAD units decide, so every chunking agrees; undefined while the buffer ends before
   * that is known.
   */
  private callAfter(from: number, final: boolean): boolean | undefined {
    const after = this.c.buf.slice(from, from + BODY_LOOKAHEAD);
    if (startsWithTag(after) || this.bodies.some((f) => f.startsBody(after))) return true;
    const undecided = !final && from + BODY_LOOKAHEAD > this.c.buf.length && (after.trim() === "" || this.bodies.some((f) => f.startsBody(after, true)));
    return undecided ? undefined : false;
  }

  /** The first format whose body `inner` starts (a loop, not find: this runs once per block). */
  private bodyOf(inner: string): ToolCallFormat | undefined {
    for (const f of this.bodies) if (f.startsBody(inner)) return f;
    return undefined;
  }

  /** The block's inner text from its open tag up to `j` in the buffer (parts already taken plus the buffer). */
  private innerUpTo(j: number): string {
    if (this.parts.length === 0) return this.c.buf.slice(this.c.pos, j); // batch: a slice, never a copy
    const head = this.parts.length === 1 ? this.parts[0]! : this.parts.join("");
    return head + this.c.buf.slice(this.c.pos, j);
  }

  /**
   * The output ended inside a wrapped block: fall back to its first quoted close, or read an opener followed by
   * prose (no body in any form) as text. Returns true when it put text back to scan.
   */
  settle(): boolean {
    if (this.overflow) return false;
    if (this.quotedClose !== undefined) {
      this.fallBackToQuotedClose();
      return true;
    }
    const inner = this.innerUpTo(this.c.buf.length);
    if (inner.trim() === "" || brokenCall(inner) || this.bodies.some((f) => f.startsBody(inner, true))) return false;
    this.replayProse();
    return true;
  }

  /** End the block at its first quoted close after all, and scan what followed that close as text again. */
  private fallBackToQuotedClose(): void {
    const cut = this.quotedClose!;
    const all = this.takeParts() + this.c.buf.slice(this.c.pos);
    const end = this.blockStart + this.open.length + cut + this.close.length;
    this.sink.note(`a ${this.close} inside a value had no later close; the block ends at that first ${this.close}`);
    this.parts = [all.slice(0, cut)];
    this.partsLen = cut;
    this.finish(true, end);
    this.c.buf = all.slice(cut + this.close.length);
    this.c.base = end;
    this.c.pos = 0;
  }

  /** The block's opener was prose naming the tag: it is text, and scanning resumes right after it. */
  private replayProse(): void {
    const after = this.blockStart + this.open.length;
    const rest = this.takeParts() + this.c.buf.slice(this.c.pos);
    this.sink.note(`${this.open} followed by prose, not a call body: kept as text`);
    this.sink.text(this.open);
    this.c.mode = "text";
    this.quotedClose = undefined;
    this.quotedLine = undefined;
    this.c.buf = rest;
    this.c.base = after;
    this.c.pos = 0;
  }

  /** Inside a block: collect text until `close` (the format's close tag, or the bare block's end). */
  collectUntil(close: string, final: boolean, bare: boolean): boolean {
    const j = this.c.buf.indexOf(close, this.c.pos);
    if (j < 0) {
      const hold = final ? this.c.buf.length : partialSuffix(this.c.buf, this.c.pos, close);
      this.append(this.c.pos, hold);
      this.c.pos = hold;
      return false;
    }
    if (bare) {
      this.append(this.c.pos, j + close.length);
      this.c.pos = j + close.length;
      this.finish(true, this.c.base + this.c.pos);
    } else {
      this.append(this.c.pos, j);
      this.c.pos = j + close.length;
      this.finish(true, this.c.base + this.c.pos);
    }
    return true;
  }

  /** A block opens at `at` in the buffer (`block`: after the open tag; `bare`: its text starts there). */
  start(at: number, mode: "block" | "bare"): void {
    this.c.mode = mode;
    this.blockStart = this.c.base + at;
    this.parts = [];
    this.partsLen = 0;
    this.overflow = false;
    this.quotedClose = undefined;
    this.quotedLine = undefined;
    this.tagChecks = 0;
    this.quote = this.quoteAt?.();
  }

  /** Hold the buffer's text from..to (the block's, or with `unbounded` the undecided start of the stream). */
  append(from: number, to: number, unbounded = false): void {
    if (to <= from) return;
    const text = this.c.buf.slice(from, to);
    if (this.overflow) return;
    this.partsLen += text.length;
    if (!unbounded && this.partsLen > this.maxBlockChars) {
      this.overflow = true;
      this.parts = [(this.parts.join("") + text).slice(0, RAW_PREVIEW)];
      return;
    }
    this.parts.push(text);
  }

  /** The text held so far, handed over and forgotten. */
  takeParts(): string {
    const s = this.parts.length === 1 ? this.parts[0]! : this.parts.join("");
    this.parts = [];
    this.partsLen = 0;
    return s;
  }

  /** Offer the block ending at the close tag `j` to the sink; false (nothing changed) when it refused it as quoted. */
  private tryFinish(j: number, tagEnd: number, quoted: () => boolean): boolean {
    const inner = this.innerUpTo(j);
    const end = this.c.base + tagEnd;
    const block: RawBlock = { inner, raw: this.open + inner + this.close, start: this.blockStart, end, wrapped: true, closed: true, overflow: false, ...this.quoted() };
    if (!this.sink.block(block, quoted)) return false;
    this.parts = [];
    this.partsLen = 0;
    this.c.pos = tagEnd;
    this.c.mode = "text";
    return true;
  }

  /** The block is over at absolute offset `end` (`closed`: its close tag was seen): report it, back to text. */
  finish(closed: boolean, end: number): void {
    const wrapped = this.c.mode === "block";
    const overflow = this.overflow;
    const inner = this.takeParts();
    const raw = wrapped ? this.open + inner + (closed && !overflow ? this.close : "") : inner;
    this.c.mode = "text";
    this.overflow = false;
    this.quotedClose = undefined;
    this.quotedLine = undefined;
    this.sink.block({ inner, raw, start: this.blockStart, end, wrapped, closed, overflow, ...this.quoted() });
  }

  private quoted(): { quote?: string } {
    return this.quote === undefined ? {} : { quote: this.quote };
  }
}

/**
 * A block whose body is no known form but holds a tag (`on=write_file>\n<parameter=path>`, `<path>`): a broken
 * call, judged and rejected to its close, not prose that named the open tag (class 4, where no tag follows the
 * opener). Its text is never read as answer text, so a fence line inside it opens nothing.
 */
function brokenCall(inner: string): boolean {
  return inner.includes("<");
}

/** The first character past whitespace is `<`. */
function startsWithTag(text: string): boolean {
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return c === 60;
  }
  return false;
}
