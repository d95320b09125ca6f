// Owns: JsonRespeller, re-spelling one JSON value as it streams in, from the call's spelling (json.dumps: ", " and
// ": " separators, any escapes) into exactly what JSON.stringify writes for its parsed value (a call's canonical
// `arguments`): whitespace dropped, escapes normalized, numbers written once whole. Never parses ahead of the text.

/** Characters of a JSON number or of `true` / `false` / `null`. */
const LITERAL = /[-+.0-9a-zA-Z]/;
/** Whitespace between JSON tokens. */
const SPACE = /[ \t\r\n]/;
/** Names JSON.stringify moves to the front of an object (array indexes): a stream that wrote others first is no longer its prefix. */
const INDEX_NAME = /^(?:0|[1-9]\d{0,9})$/;

const SHORT_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', "\\": "\\\\", "/": "/", b: "\\b", f: "\\f", n: "\\n", r: "\\r", t: "\\t" };
const SHORT_DECODED: Readonly<Record<string, string>> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** `\uXXXX` in JSON.stringify's spelling (lowercase hex), for a lone surrogate. */
const uEscape = (code: number) => "\\u" + code.toString(16).padStart(4, "0");

export class JsonRespeller {
  /** The value is complete: its last character was consumed. */
  done = false;
  /**
   * A member name JSON.stringify would move (an array index such as "0"): what was written may not be a prefix of
   * the canonical text. Stop streaming when set.
   */
  unsafe = false;
  private readonly stack: string[] = [];
  private expectKey = false;
  private inString = false;
  private isKey = false;
  private key = "";
  /** A member name's text, held until the name is whole. */
  private keyOut = "";
  /** An escape's characters after its backslash, while it is incomplete. */
  private escape: string | undefined;
  /** A high surrogate from a `\u` escape, waiting for its low half. */
  private high: number | undefined;
  /** A number or literal in progress (written once it ends). */
  private literal = "";

  /**
   * Consume `text` up to the end of the value; returns what to send and how many characters were used. Stops before
   * a character that makes the text unsafe: what was sent stays a prefix of the canonical text.
   */
  push(text: string): { out: string; used: number } {
    let out = "";
    let i = 0;
    for (; i < text.length && !this.done; i++) {
      const o = this.char(text[i]!);
      if (this.unsafe) break;
      out += o;
    }
    return { out, used: i };
  }

  private char(c: string): string {
    if (this.inString && this.isKey) {
      // A member name is sent once it is whole, and only when JSON.stringify keeps it in place.
      this.keyOut += this.stringChar(c);
      if (this.inString) return "";
      const out = this.keyOut;
      this.keyOut = "";
      return out;
    }
    if (this.inString) return this.stringChar(c);
    let out = "";
    if (this.literal !== "" && !LITERAL.test(c)) out += this.flushLiteral();
    if (SPACE.test(c)) return out;
    const top = this.stack[this.stack.length - 1];
    if (c === "{" || c === "[") {
      this.stack.push(c);
      this.expectKey = c === "{";
      return out + c;
    }
    if (c === "}" || c === "]") {
      this.stack.pop();
      if (this.stack.length === 0) this.done = true;
      return out + c;
    }
    if (c === ",") this.expectKey = top === "{";
    else if (c === ":") this.expectKey = false;
    else if (c === '"') {
      this.inString = true;
      this.isKey = this.expectKey && top === "{";
      this.key = "";
    } else if (LITERAL.test(c)) {
      this.literal += c;
      return out;
    } else this.unsafe = true;
    return out + c;
  }

  private flushLiteral(): string {
    const text = this.literal;
    this.literal = "";
    try {
      return JSON.stringify(JSON.parse(text));
    } catch {
      this.unsafe = true;
      return text;
    }
  }

  private stringChar(c: string): string {
    if (this.escape !== undefined) return this.escapeChar(c);
    // A pending high surrogate stays only if a `\u` escape follows (its low half may).
    if (c === "\\") {
      this.escape = "";
      return "";
    }
    const out = this.flushHigh();
    if (c === '"') {
      this.inString = false;
      if (this.isKey && INDEX_NAME.test(this.key)) this.unsafe = true;
      return out + c;
    }
    if (this.isKey) this.key += c;
    return out + c;
  }

  private escapeChar(c: string): string {
    const esc = (this.escape ?? "") + c;
    if (esc[0] !== "u") {
      this.escape = undefined;
      const short = SHORT_ESCAPES[esc];
      if (short === undefined) this.unsafe = true;
      if (this.isKey) this.key += SHORT_DECODED[esc] ?? "";
      return this.flushHigh() + (short ?? "");
    }
    if (esc.length < 5) {
      this.escape = esc;
      return "";
    }
    this.escape = undefined;
    const code = Number.parseInt(esc.slice(1), 16);
    if (!Number.isFinite(code) || !/^[0-9a-fA-F]{4}$/.test(esc.slice(1))) {
      this.unsafe = true;
      return "";
    }
    if (code >= 0xd800 && code <= 0xdbff) {
      const out = this.flushHigh();
      this.high = code;
      return out;
    }
    if (code >= 0xdc00 && code <= 0xdfff) {
      if (this.high === undefined) return uEscape(code);
      const pair = String.fromCharCode(this.high, code);
      this.high = undefined;
      if (this.isKey) this.key += pair;
      return pair;
    }
    const ch = String.fromCharCode(code);
    if (this.isKey) this.key += ch;
    return this.flushHigh() + JSON.stringify(ch).slice(1, -1);
  }

  private flushHigh(): string {
    if (this.high === undefined) return "";
    const out = uEscape(this.high);
    this.high = undefined;
    return out;
  }
}
