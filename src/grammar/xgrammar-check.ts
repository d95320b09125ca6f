// Owns: judging texts and token sequences with xgrammar itself (web-xgrammar over the Qwen3 vocabulary): one
// session holds the WASM module, the tokenizer info and a compiler, and compiles each grammar once.

import { loadXgrammar, qwen3TokenizerInfo, type XgCompiled, type XgCompiler, type XgrammarModule } from "./xgrammar-wasm.js";
import { QWEN3_TOKENS } from "../formats/qwen3-tokens.js";

/** xgrammar over the Qwen3 vocabulary: compile grammars, check texts, build matchers for sampling. */
export class XgrammarSession {
  private constructor(
    readonly xg: XgrammarModule,
    private readonly compiler: XgCompiler,
  ) {}

  /** Load the bundle and the vocabulary (about 1.5 s here). */
  static async create(): Promise<XgrammarSession> {
    const xg = loadXgrammar();
    const info = await qwen3TokenizerInfo(xg);
    return new XgrammarSession(xg, await xg.GrammarCompiler.createGrammarCompiler(info, false));
  }

  /** Compile EBNF (throws xgrammar's parser error, which it also prints to stderr). */
  compile(ebnf: string): Promise<XgCompiled> {
    return this.compiler.compileGrammar(ebnf);
  }

  /** True when the whole text is a complete sentence of the grammar (the turn's end token is then accepted). */
  async accepts(compiled: XgCompiled, text: string): Promise<boolean> {
    const m = await this.xg.GrammarMatcher.createGrammarMatcher(compiled);
    try {
      return m._acceptString(text) && m.acceptToken(QWEN3_TOKENS.imEnd.token);
    } finally {
      m.dispose();
    }
  }

  /** True when every token is accepted in turn and the grammar may end after them. */
  async acceptsTokens(compiled: XgCompiled, tokens: readonly number[]): Promise<boolean> {
    const m = await this.xg.GrammarMatcher.createGrammarMatcher(compiled);
    try {
      return tokens.every((t) => m.acceptToken(t)) && m.acceptToken(QWEN3_TOKENS.imEnd.token);
    } finally {
      m.dispose();
    }
  }

  dispose(): void {
    this.compiler.dispose();
  }
}

/** One text against one EBNF grammar in xgrammar (loads the bundle each call: for the CLI). */
export async function xgrammarAccepts(ebnf: string, text: string): Promise<boolean> {
  const session = await XgrammarSession.create();
  try {
    return session.accepts(await session.compile(ebnf), text);
  } finally {
    session.dispose();
  }
}
