// Owns: where a call opener in untrusted text (a proxy's upstream, issue 52) is quoted, not written as an action:
// inside an inline code span, on an indented code line, inside a string of a JSON answer, right after a quote
// mark, under an example intro ("Example of the format:"), or right after a block that was itself quoted. The
// state is read one character at a time from the text before the opener, so every chunking of the output
// decides alike (streaming equals batch).

/** Characters that quote an opener written right after them (`"<tool_call>`, `'<tool_call>`). */
const QUOTE_MARKS = new Set(['"', "'"]);
/** A line that introduces an example: one of these words, and the line ends with a colon. */
const EXAMPLE_INTRO = /(?:\bexamples?\b|\be\.g\.|\bfor instance\b|\bsamples?\b|\bsuch as\b|\blike this\b|\bsyntax\b|\billustrat\w*)[^\n]*:[ \t]*$/iu;
/** Characters kept of a line's end to judge an example intro (bounds the memory and the work). */
const LINE_TAIL = 200;
/** Indentation, in columns, from which a line is an indented code block (CommonMark: 4; a tab counts 4). */
const CODE_INDENT = 4;

export class QuoteContext {
  /** The open inline code span's backtick run length (0: none). */
  private span = 0;
  /** The backtick run being read (resolved at the next other character). */
  private run = 0;
  /** Columns of indentation of the current line so far, and whether its first non-blank character came. */
  private indent = 0;
  private lineStarted = false;
  /** The current line's tail, and the last line that had more than blanks. */
  private line = "";
  private lastLine = "";
  private last = "";
  /** A JSON answer: the text's first non-blank character opened an object or array (tracked until it closes). */
  private json: "undecided" | "no" | "in" | "done";
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The last block opened here was quoted, and only blanks came since. */
  private afterQuoted = false;

  /** @param json read the text as a possible JSON answer (answer text; false for reasoning). */
  constructor(json: boolean) {
    this.json = json ? "undecided" : "no";
  }

  copy(): QuoteContext {
    const c = new QuoteContext(false);
    Object.assign(c, this);
    return c;
  }

  /** A fenced code block opened or closed here: spans and lines start afresh (the fence's text is not read). */
  fenced(): void {
    this.span = 0;
    this.run = 0;
    this.indent = 0;
    this.lineStarted = false;
    this.line = "";
    this.lastLine = "";
    this.afterQuoted = false;
  }

  /** Text written before the next opener (one pass over its character codes; lines are sliced, not built). */
  push(text: string): void {
    let seg = 0; // where the current line starts in `text`
    for (let k = 0; k < text.length; k++) {
      const c = text.charCodeAt(k);
      const blank = c === 32 || c === 9 || c === 10 || c === 13;
      if (!blank) this.afterQuoted = false;
      if (this.json === "undecided" && !blank) this.json = c === 123 || c === 91 ? "in" : "no";
      if (this.json === "in") {
        this.jsonChar(c);
        if (c === 10) {
          this.endLine(text, seg, k);
          seg = k + 1;
        }
        this.lineStarted = true; // inside a JSON value, indentation is layout, not a code block
        continue;
      }
      if (c === 96) {
        this.run++;
        this.lineStarted = true;
        continue;
      }
      if (this.run > 0) {
        if (this.span === 0) this.span = this.run;
        else if (this.span === this.run) this.span = 0;
        this.run = 0;
      }
      if (c === 10) {
        if (!this.lineStarted) this.span = 0; // a blank line ends the paragraph, and any span left open in it
        this.endLine(text, seg, k);
        seg = k + 1;
      } else if (!this.lineStarted) {
        if (c === 32) this.indent++;
        else if (c === 9) this.indent += CODE_INDENT;
        else if (c !== 13) this.lineStarted = true;
      }
    }
    if (text.length > 0) {
      this.line = seg === 0 && this.line.length + text.length <= LINE_TAIL ? this.line + text : (this.line + text.slice(Math.max(seg, text.length - LINE_TAIL))).slice(-LINE_TAIL);
      this.last = text[text.length - 1]!;
    }
  }

  /** The line that ends at `text[k]` (a newline): remembered when it had more than blanks. */
  private endLine(text: string, seg: number, k: number): void {
    if (this.lineStarted) this.lastLine = (this.line + text.slice(Math.max(seg, k - LINE_TAIL), k)).slice(-LINE_TAIL);
    this.line = "";
    this.indent = 0;
    this.lineStarted = false;
  }

  /** Why a block opening here is quoted text (undefined: it is not); remembers the answer for the blocks right after it. */
  quoteBlock(): string | undefined {
    const why = this.afterQuoted ? "right after a quoted call" : this.quoted() ?? this.exampleIntro();
    this.afterQuoted = why !== undefined;
    return why;
  }

  /** Whether text here is quoted (a code span, an indented code line, a JSON string): a stray tag here is text. */
  quoted(): string | undefined {
    if (this.json === "in" && this.inString) return "a string of a JSON answer";
    // A pending backtick run opens a span when none is open, closes one of its own length, else is text in it.
    const span = this.run === 0 ? this.span : this.span === 0 ? this.run : this.span === this.run ? 0 : this.span;
    if (span > 0) return "an inline code span";
    if (this.indent >= CODE_INDENT) return "an indented code block";
    if (QUOTE_MARKS.has(this.last)) return "quote marks";
    return undefined;
  }

  private exampleIntro(): string | undefined {
    const line = this.line.trim() !== "" ? this.line : this.lastLine;
    return EXAMPLE_INTRO.test(line) ? "an example" : undefined;
  }

  /** One character of a JSON answer's value: strings (with escapes) and nesting, until the value closes. */
  private jsonChar(c: number): void {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (c === 92) this.escaped = true;
      else if (c === 34) this.inString = false;
    } else if (c === 34) this.inString = true;
    else if (c === 123 || c === 91) this.depth++;
    else if (c === 125 || c === 93) {
      if (--this.depth === 0) this.json = "done";
    }
  }
}
