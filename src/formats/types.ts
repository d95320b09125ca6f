// Owns: the shape of a tool-call format definition. One definition drives the prompt renderer, the grammar
// compiler and the parser; nothing outside src/formats spells a format's tags.

/** A tag that is a single special token in the Qwen3 vocabulary. */
export interface SpecialTag {
  /** How the tag is spelled in text. */
  text: string;
  /** Its token id; grammars force the tag as `<[id]>` so it cannot be spelled from plain characters. */
  token: number;
}

/** hermes: the whole call is one JSON object `{"name": …, "arguments": {…}}`. */
export interface JsonBody {
  kind: "json";
  /** Key holding the function name. */
  nameKey: "name";
  /** Key holding the arguments object. */
  argumentsKey: "arguments";
  /** Separator between object members / array items in the canonical spelling (Python json.dumps). */
  itemSep: ", ";
  /** Separator between a key and its value in the canonical spelling. */
  keySep: ": ";
}

/** qwen3coder: `<function=NAME>` with one `<parameter=ARG>` block per argument. */
export interface XmlBody {
  kind: "xml";
  /** Opens the function; the name follows, then `tagEnd`. */
  functionOpen: "<function=";
  functionClose: "</function>";
  /** Opens a parameter; the argument name follows, then `tagEnd`. */
  parameterOpen: "<parameter=";
  parameterClose: "</parameter>";
  tagEnd: ">";
  /** String values are raw text; every other type is written as JSON. */
  stringValues: "raw";
}

export type FormatId = "hermes" | "qwen3coder";

export interface ToolCallFormat {
  id: FormatId;
  /** Human description and the template it follows. */
  description: string;
  open: SpecialTag;
  close: SpecialTag;
  /**
   * Text between `open` and the body, and between the body and `close`. Both Qwen templates put one
   * newline on each side.
   */
  framing: "\n";
  /** Text between two consecutive call blocks in one turn. */
  blockSeparator: "\n";
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
  body: JsonBody | XmlBody;
}
