// Owns: finding a key written twice in one object of a JSON (or Python-literal) text. JSON.parse and the
// literal readers keep the last value silently; the parser refuses such a call instead (`duplicate_key`).

/** The first repeated key: its name, and where its object sits (`arguments.opts[2]`; "" for the top level). */
export interface DuplicateKey {
  key: string;
  at: string;
}

interface Frame {
  /** Keys of an object; undefined for an array or tuple. */
  keys: Set<string> | undefined;
  /** The next string in this object is a key. */
  expectKey: boolean;
  /** Path segment of this value inside its parent. */
  segment: string;
  /** Item index (arrays) or the last key (objects): names the child being read. */
  index: number;
  lastKey: string;
}

/**
 * The first key written twice in the same object of `text`, compared after unescaping ("a" and "\u0061" are
 * one key); undefined when every object's keys are distinct. Linear, iterative (no recursion), and tolerant:
 * it reads strings in `"` or `'` (Python dict reprs), tuples as arrays, and never throws on text that is not
 * JSON (it then answers for the part it could read).
 */
export function findDuplicateKey(text: string): DuplicateKey | undefined {
  const stack: Frame[] = [];
  const childSegment = (): string => {
    const top = stack[stack.length - 1];
    if (!top) return "";
    return top.keys ? `.${top.lastKey}` : `[${top.index}]`;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 || c === 0x27) {
      const end = stringEnd(text, i, c);
      if (end < 0) return undefined;
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectKey) {
        const key = unquote(text.slice(i, end + 1), c);
        if (top.keys.has(key)) return { key, at: pathOf(stack) };
        top.keys.add(key);
        top.lastKey = key;
        top.expectKey = false;
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b || c === 0x28) {
      const segment = childSegment();
      stack.push({ keys: c === 0x7b ? new Set() : undefined, expectKey: true, segment, index: 0, lastKey: "" });
    } else if (c === 0x7d || c === 0x5d || c === 0x29) {
      stack.pop();
    } else if (c === 0x2c) {
      const top = stack[stack.length - 1];
      if (top?.keys) top.expectKey = true;
      else if (top) top.index++;
    }
  }
  return undefined;
}

function pathOf(stack: readonly Frame[]): string {
  let out = "";
  for (const f of stack) out += f.segment;
  return out.startsWith(".") ? out.slice(1) : out;
}

/** Index of the quote that closes the string opened at `start` (a quote after an odd run of backslashes is escaped). */
function stringEnd(text: string, start: number, quote: number): number {
  for (let k = start + 1; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x5c) k++;
    else if (c === quote) return k;
  }
  return -1;
}

/** A key's text: JSON unescaping for `"…"` (the raw text when that fails), Python's common escapes for `'…'`. */
function unquote(literal: string, quote: number): string {
  const body = literal.slice(1, -1);
  if (!body.includes("\\")) return body;
  if (quote === 0x22) {
    try {
      return JSON.parse(literal) as string;
    } catch {
      return body;
    }
  }
  return body.replace(/\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)/g, (_, e: string) =>
    e.length > 1 ? String.fromCharCode(parseInt(e.slice(1), 16)) : (SIMPLE_ESCAPES[e] ?? e),
  );
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r", "0": "\0" };

/** The message the model reads for a repeated key in its `name` call (`at` as findDuplicateKey gives it). */
export function duplicateKeyMessage(name: string | undefined, dup: DuplicateKey): string {
  const what = name ? `Your ${name} call` : "Your tool call";
  const where = dup.at === "" ? "" : ` in ${dup.at}`;
  return `${what} gives the key ${JSON.stringify(dup.key)} twice${where}; only one value can be meant. Give each key once.`;
}
