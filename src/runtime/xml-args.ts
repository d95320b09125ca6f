// Owns: XmlArgs, re-spelling a tag-bodied call's parameters (qwen3coder, qwen35: `<parameter=NAME>\nVALUE\n
// </parameter>\n` … `</function>`) into the canonical `arguments` JSON as they stream in: `{"NAME":` then a string
// value's raw text as its JSON encoding, character by character. Under the grammar raw text never spells a tag
// prefix (`</par`), so a value ends at its first closing tag. A parameter that is not a string (its JSON is typed by
// the schema on reading) stops the stream there: the rest of the call goes out whole once the parser has judged it.

import type { ParameterTags } from "../formats/index.js";

/** What the re-speller reports after each piece of text. */
export interface ArgsStep {
  out: string;
  used: number;
}

type Where = "between" | "name" | "value";

export class XmlArgs {
  /** The function closed: `}` was sent. */
  done = false;
  /** Stop streaming (a parameter that is not a string, or text the tags do not explain). */
  unsafe = false;
  private where: Where = "between";
  /** Text read but not yet explained (a tag in progress, or a value's tail that may be its closing tag). */
  private pending = "";
  private name = "";
  private members = 0;

  /**
   * @param tags the format's parameter tags
   * @param functionClose the text that ends the body (`</function>`)
   * @param isString whether a parameter's value is read as raw text (its schema allows strings)
   */
  constructor(
    private readonly tags: ParameterTags,
    private readonly functionClose: string,
    private readonly isString: (name: string) => boolean,
  ) {}

  /** Consume `text` until the body ends or the stream must stop. */
  push(text: string): ArgsStep {
    let out = "";
    let i = 0;
    for (; i < text.length && !this.done && !this.unsafe; i++) out += this.char(text[i]!);
    return { out, used: i };
  }

  private char(c: string): string {
    if (this.where === "value") return this.valueChar(c);
    this.pending += c;
    const p = this.pending;
    if (this.where === "name") {
      if (!p.endsWith(this.tags.end)) {
        if (p.length > 256 || p.includes("<")) this.unsafe = true;
        return "";
      }
      this.name = p.slice(0, -this.tags.end.length);
      this.pending = "";
      // A value typed by the schema is JSON read with the schema's types: it goes out with the whole call.
      if (!this.isString(this.name)) {
        this.unsafe = true;
        return "";
      }
      this.where = "value";
      return (this.members++ === 0 ? "{" : ",") + JSON.stringify(this.name) + ':"';
    }
    // Between parameters: only whitespace, a parameter's open tag, or the function's close.
    const trimmed = p.trimStart();
    if (trimmed === this.tags.open) {
      this.pending = "";
      this.where = "name";
      return "";
    }
    if (trimmed === this.functionClose) {
      this.done = true;
      return this.members === 0 ? "{}" : "}";
    }
    if (!this.tags.open.startsWith(trimmed) && !this.functionClose.startsWith(trimmed)) this.unsafe = true;
    return "";
  }

  /** A string value's character: held while the tail may be its closing tag, else sent JSON-escaped. */
  private valueChar(c: string): string {
    this.pending += c;
    const close = this.tags.close;
    if (this.pending === close) {
      this.pending = "";
      this.where = "between";
      return '"';
    }
    // Send what cannot be the start of the closing tag (the pending text keeps the longest tail that can).
    let keep = this.pending.length;
    while (keep > 0 && !close.startsWith(this.pending.slice(this.pending.length - keep))) keep--;
    // A high surrogate waits for its low half (JSON.stringify would escape it alone).
    const last = this.pending.charCodeAt(this.pending.length - keep - 1);
    if (keep === 0 && last >= 0xd800 && last <= 0xdbff) keep = 1;
    const sent = this.pending.slice(0, this.pending.length - keep);
    this.pending = this.pending.slice(this.pending.length - keep);
    return sent ? JSON.stringify(sent).slice(1, -1) : "";
  }
}
