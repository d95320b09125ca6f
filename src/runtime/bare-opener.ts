// Owns: watching free text for the format's bare call opener (`<function=` of the XML formats, written without
// the format's open tag) where the parser reads a bare block (at a line start, outside a code fence), and
// the tokens that would complete it from a partial opener: banned under tool choice "none", and under "auto"
// the ones that run past it, so that the opener always ends a token and the grammar starts right after it.

/** Where free text stands with respect to the opener. */
export type BareState =
  /** Nothing of the opener at a line start. */
  | { kind: "none" }
  /** The text ends with the whole opener at a line start: the rest is a call. */
  | { kind: "opened" }
  /** The line so far is a proper prefix of the opener; `rest` would complete it. */
  | { kind: "partial"; rest: string };

/** Tokens by how they meet the rest of an opener: exactly it, or starting with it and going on. */
export interface Completing {
  exact: readonly number[];
  longer: readonly number[];
}

/** Spaces or tabs the parser allows before a bare block on its line (src/parse/scan-patterns.ts). */
const MAX_INDENT = 16;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Whether the complete lines of `text` leave a code fence open (an odd number of fence lines). */
function insideFence(text: string): boolean {
  let open = false;
  for (const line of text.split("\n")) if (FENCE.test(line)) open = !open;
  return open;
}

/** The state of `text` (free text of one turn, from its start) for `opener`. */
export function bareState(opener: string, text: string): BareState {
  const lineStart = text.lastIndexOf("\n") + 1;
  const line = text.slice(lineStart);
  let indent = 0;
  while (indent < line.length && indent < MAX_INDENT && (line[indent] === " " || line[indent] === "\t")) indent++;
  const after = line.slice(indent);
  if (after.length > opener.length || !opener.startsWith(after)) return { kind: "none" };
  if (lineStart > 0 && insideFence(text.slice(0, lineStart - 1))) return { kind: "none" };
  return after === opener ? { kind: "opened" } : { kind: "partial", rest: opener.slice(after.length) };
}

/** The vocabulary's tokens, grouped once per runtime by how they complete an opener (filled lazily). */
export class BareOpenerTokens {
  private readonly byRest = new Map<string, Completing>();
  private readonly containing = new Map<string, readonly number[]>();

  /** @param texts each token's text (TokenTables.texts) */
  constructor(private readonly texts: readonly string[]) {}

  /** Tokens that complete the opener from `rest`: exactly, or running past it. */
  completing(rest: string): Completing {
    let found = this.byRest.get(rest);
    if (found === undefined) {
      const exact: number[] = [];
      const longer: number[] = [];
      this.texts.forEach((t, id) => {
        if (t === rest) exact.push(id);
        else if (t.startsWith(rest)) longer.push(id);
      });
      found = { exact, longer };
      this.byRest.set(rest, found);
    }
    return found;
  }

  /** Tokens that spell the whole opener inside them (never a clean trigger, never allowed under "none"). */
  spelling(opener: string): readonly number[] {
    let found = this.containing.get(opener);
    if (found === undefined) {
      found = this.texts.flatMap((t, id) => (t.includes(opener) ? [id] : []));
      this.containing.set(opener, found);
    }
    return found;
  }
}

/** What the watch saw after free text: the opener written whole, else the tokens to ban next (none: empty). */
export type BareWatch = { opened: true } | { opened: false; banned: readonly number[] };

/** One turn's free text, watched for the bare opener. */
export class BareOpenerWatch {
  private text = "";

  constructor(
    private readonly opener: string,
    private readonly tokens: BareOpenerTokens,
    /** Tool choice "none": the tokens that complete the opener are banned, and the open tag with them. */
    private readonly none: boolean,
    private readonly openTag: number,
  ) {}

  /**
   * After free text: whether it ends with the opener; else, on a line that may be starting one, under "none" the
   * tokens that would complete it are banned, under "auto" the ones that would run past it (so the grammar starts
   * right after it).
   */
  push(text: string): BareWatch {
    this.text += text;
    const state = bareState(this.opener, this.text);
    if (state.kind === "opened") return { opened: true };
    if (state.kind !== "partial") return { opened: false, banned: [] };
    const { exact, longer } = this.tokens.completing(state.rest);
    return { opened: false, banned: [...longer, ...this.tokens.spelling(this.opener), ...(this.none ? [...exact, this.openTag] : [])] };
  }
}
