// Owns: the shape of a tool-call format: its tags and spelling as plain data, plus the operations the prompt
// renderer, the grammar compiler and the parser call, so that none of them branches on which format it is.

/** A tag that is a single special token in the Qwen3 vocabulary. */
export interface SpecialTag {
  /** How the tag is spelled in text. */
  text: string;
  /** Its token id; grammars force the tag as `<[id]>` so it cannot be spelled from plain characters. */
  token: number;
}

/** How JSON values are spelled inside calls: the separators of Python `json.dumps`, which the templates use. */
export interface JsonSeparators {
  /** Between object members and between array items. */
  itemSep: string;
  /** Between a key and its value. */
  keySep: string;
}

/** The whole call is one JSON object `{"name": …, "arguments": {…}}` (hermes). */
export interface JsonCallSpelling extends JsonSeparators {
  /** Key holding the function name. */
  nameKey: string;
  /** Key holding the arguments object. */
  argumentsKey: string;
}

/** `<function=NAME>` with one `<parameter=ARG>` block per argument (qwen3coder). */
export interface XmlCallSpelling {
  /** Opens the function; the name follows, then `tagEnd`. */
  functionOpen: string;
  functionClose: string;
  /** Opens a parameter; the argument name follows, then `tagEnd`. */
  parameterOpen: string;
  parameterClose: string;
  tagEnd: string;
}

/**
 * How a block's body is decoded: the name of a decoder the parse layer keeps in its table
 * (src/parse/decoders.ts), with the spelling that decoder reads. Formats import nothing from the parser, so
 * they name their decoder instead of holding it; only that table reads `decoder`.
 */
export type CallBody =
  | { decoder: "json-call"; spelling: JsonCallSpelling }
  | { decoder: "xml-function"; spelling: XmlCallSpelling };

/** The decoders a format can name. */
export type DecoderName = CallBody["decoder"];

/** How a parameter block is spelled when arguments are tags: `open NAME end` VALUE `close`. */
export interface ParameterTags {
  /** Text before the name, e.g. `<parameter=`. */
  open: string;
  /** Text between the name and the value, e.g. `>\n`. */
  end: string;
  /** Text after the value, e.g. `\n</parameter>\n`. */
  close: string;
}

/** A call block the parser also reads without the open/close wrapper, when it starts a line. */
export interface BareBlock {
  /** Text that opens it (after up to 16 spaces or tabs). */
  open: string;
  /** Text that ends it (kept in the block). */
  close: string;
  /** How the parser's notes name it, e.g. `<function=…>`. */
  label: string;
}

/** The thinking tags of a vocabulary, and whether the chat template's generation prompt already opens them. */
export interface ThinkTags {
  open: SpecialTag;
  close: SpecialTag;
  /**
   * With thinking on, the generation prompt ends inside an open think block (Qwen3.5 writes `<think>\n`), so
   * the model starts with its reasoning; false when the model opens the block itself (Qwen3).
   */
  openedByPrompt: boolean;
}

/** One past call: the function name and its arguments (JSON text as OpenAI sends it, or the object). */
export interface PastCall {
  name: string;
  arguments: string | Record<string, unknown>;
}

/** Where a format writes a call: the template's own markup apart from the caller's content (tokenized as text). */
export interface CallWriter {
  markup(text: string): unknown;
  content(text: string): unknown;
}

/** How the chat template prints values; the prompt stage supplies it (Python `json.dumps` and `str`). */
export interface ValuePrinter {
  json(value: unknown): string;
  str(value: unknown): string;
}

/** A format's identifier, as `--format` and the registry spell it (FORMAT_IDS lists the registered ones). */
export type FormatId = string;

/** The data every format has, whatever its body. */
export interface FormatData {
  id: FormatId;
  /** Human description and the template it follows. */
  description: string;
  open: SpecialTag;
  close: SpecialTag;
  /** Text between `open` and the body, and between the body and `close`. Both Qwen templates put one newline. */
  framing: string;
  /** Text between two consecutive call blocks in one turn. */
  blockSeparator: string;
  /** The template writes `blockSeparator` before a turn's first call even when no content comes before it. */
  separateFirstCall: boolean;
  /** The chat template the prompt follows: the name of a renderer in src/prompt (`qwen3`, `qwen3-coder`). */
  template: string;
  /** Texts that all appear in a chat template that renders this format (detection; more markers = more specific). */
  templateMarkers: readonly string[];
  /** The thinking tags of the format's vocabulary. Default: Qwen3's (`<think>` 151667, `</think>` 151668, opened by the model). */
  think?: ThinkTags;
  /**
   * Text before a turn's first call when content comes before it, where the template writes more than
   * `blockSeparator` there (Qwen3.5: a blank line). Default: `blockSeparator`.
   */
  firstCallSeparator?: string;
  /**
   * How the template prints an argument value that is not a string, in a format whose values are raw text:
   * `"str-unless-container"` (Qwen3-Coder, Qwen3.5: objects and arrays as JSON, other values with Python's str(),
   * so `True`, `None`) or `"json"` (Qwen3.8: every non-string value through `tojson`, so `true`, `null`).
   * Default: "str-unless-container".
   */
  nonStringValues?: "str-unless-container" | "json";
  /**
   * The template variables beyond `enable_thinking` that its text reads (`preserve_thinking`, `reasoning_effort`):
   * a request may set only these. Default: none.
   */
  templateVariables?: readonly TemplateVariable[];
}

/** A chat-template variable qtc passes through when the model's template reads it. */
export type TemplateVariable = "preserve_thinking" | "reasoning_effort";

export interface ToolCallFormat extends FormatData {
  think: ThinkTags;
  firstCallSeparator: string;
  /**
   * How the characters of a string argument are written inside a call: `"json"` (inside a JSON string, with its
   * escapes) or `"raw"` (plain text up to the closing tag). The runtime picks its free-text sampler bias by it.
   */
  stringText: "json" | "raw";
  /**
   * Texts that can end a value at a free position inside a call, longest first: the runtime's budget guard
   * closes a call with the first one the grammar accepts (then the close tag).
   */
  valueClosers: readonly string[];
  /** The body's decoder and spelling (read by the parser's decoder table only). */
  body: CallBody;
  /** A block the parser reads without the wrapper too; undefined when there is none. */
  bareBlock: BareBlock | undefined;

  /** Write one call block, open tag to close tag, as the template spells it. Throws `invalid_messages` for bad arguments. */
  renderCall(out: CallWriter, call: PastCall, print: ValuePrinter): void;
  /** The body with `name` and `args` put into its slots verbatim, as a template's instructions show the shape. */
  bodyShape(name: string, args: string): string;
  /** Literal text before and after a tool's arguments inside the block (between the framing). */
  bodyAround(name: string): { before: string; after: string };
  /** How each argument is spelled when arguments are tags; undefined when they are one JSON object. */
  parameterTags(): ParameterTags | undefined;
  // Where a block ends (docs/parser.md, classes 1-4): the scanner asks at each open or close tag inside a block;
  // `inner` is the block's text after its open tag, up to the tag found.
  /** `inner` starts like this format's body; `atEnd` (the output ended there): also when it is a cut-off start of one. */
  startsBody(inner: string, atEnd?: boolean): boolean;
  /** A close tag right after `inner` ends the block; false when it falls inside a value, where it is quoted text. */
  closesAt(inner: string): boolean;
  /**
   * Whether a value can run over lines. When it cannot (a JSON string), a line that ends while still inside the
   * value that quoted a close tag shows that close was real after all.
   */
  valuesSpanLines: boolean;
  /** `inner` is a whole body, so an open tag right after it closes the block (its close tag was left out). */
  bodyComplete(inner: string): boolean;
  /** Tags bounded text may never spell in this format: its call tags, its body tags and the thinking tags. */
  tagWords(): string[];
}
