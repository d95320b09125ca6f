// Owns: finding where strict JSON text goes wrong (an offset for line/column messages), since V8's
// JSON.parse messages do not always carry a position.

/** Offset of the first character at which `text` stops being strict JSON; undefined when it is valid. */
export function jsonErrorOffset(text: string): number | undefined {
  const r = new Checker(text);
  try {
    r.ws();
    r.value(0);
    r.ws();
    return r.i < text.length ? r.i : undefined;
  } catch (e) {
    if (e instanceof Stop) return Math.min(r.i, text.length);
    throw e;
  }
}

class Stop {}
/** Deeper text is reported as going wrong there: the checker recurses, and 10,000 levels could overflow the stack. */
const MAX_DEPTH = 1_000;

class Checker {
  i = 0;
  constructor(private readonly s: string) {}

  ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return;
      this.i++;
    }
  }

  value(depth: number): void {
    if (depth > MAX_DEPTH) throw new Stop();
    const c = this.s[this.i];
    if (c === "{") return this.object(depth);
    if (c === "[") return this.array(depth);
    if (c === '"') return this.string();
    if (c === "t") return this.word("true");
    if (c === "f") return this.word("false");
    if (c === "n") return this.word("null");
    return this.number();
  }

  object(depth: number): void {
    this.i++;
    this.ws();
    if (this.s[this.i] === "}") {
      this.i++;
      return;
    }
    for (;;) {
      if (this.s[this.i] !== '"') throw new Stop();
      this.string();
      this.ws();
      if (this.s[this.i] !== ":") throw new Stop();
      this.i++;
      this.ws();
      this.value(depth + 1);
      if (this.closedOrComma("}")) return;
    }
  }

  array(depth: number): void {
    this.i++;
    this.ws();
    if (this.s[this.i] === "]") {
      this.i++;
      return;
    }
    for (;;) {
      this.value(depth + 1);
      if (this.closedOrComma("]")) return;
    }
  }

  /** After a member or an item: true at the closing bracket (taken), false after a comma (and the space after it). */
  private closedOrComma(close: "}" | "]"): boolean {
    this.ws();
    const c = this.s[this.i];
    if (c === close) {
      this.i++;
      return true;
    }
    if (c !== ",") throw new Stop();
    this.i++;
    this.ws();
    return false;
  }

  string(): void {
    const s = this.s;
    this.i++;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 0x22) {
        this.i++;
        return;
      }
      if (c < 0x20) throw new Stop();
      if (c === 0x5c) {
        const e = s[this.i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(s.slice(this.i + 2, this.i + 6))) {
            this.i++;
            throw new Stop();
          }
          this.i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) this.i += 2;
        else {
          this.i++;
          throw new Stop();
        }
      } else this.i++;
    }
    throw new Stop();
  }

  word(w: string): void {
    for (let k = 0; k < w.length; k++, this.i++) if (this.s[this.i] !== w[k]) throw new Stop();
  }

  number(): void {
    const m = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    m.lastIndex = this.i;
    const r = m.exec(this.s);
    if (!r || r[0] === "" || r[0] === "-") throw new Stop();
    this.i += r[0].length;
  }
}
