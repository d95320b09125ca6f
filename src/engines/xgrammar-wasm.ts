// Owns: loading xgrammar itself (the npm package `@mlc-ai/web-xgrammar`, xgrammar's C++ compiler and matcher in
// WASM) the way its bundle expects, and the Qwen3 vocabulary as xgrammar's TokenizerInfo. The one module that
// touches the bundle: tests, the bench and the fake vLLM/SGLang servers go through it.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { QWEN3_TOKENS } from "../formats/qwen3-tokens.js";
import { readQwen3Vocab, TOKEN_TYPE } from "../model/qwen3-vocab.js";

/** The one dynamic import in the 0.1.27 bundle. */
const DYNAMIC_IMPORT = "await import('module')";

/** The package and version the equivalence tests and the bench were measured with. */
export const XGRAMMAR_PACKAGE = "@mlc-ai/web-xgrammar";

/** What qtc uses of the bundle's exports (see its lib/xgrammar.d.ts). */
export interface XgrammarModule {
  Grammar: {
    fromEBNF(ebnf: string, rootRule?: string): Promise<XgGrammar>;
  };
  GrammarCompiler: {
    createGrammarCompiler(info: XgTokenizerInfo, cacheEnabled?: boolean): Promise<XgCompiler>;
  };
  GrammarMatcher: {
    createGrammarMatcher(compiled: XgCompiled, overrideStopTokens?: number[] | number, terminateWithoutStopToken?: boolean, maxRollbackTokens?: number): Promise<XgMatcher>;
  };
  TokenizerInfo: {
    createTokenizerInfo(encodedVocab: string[], vocabType?: string, prependSpace?: boolean, vocabSize?: number, stopTokenIds?: number[] | number): Promise<XgTokenizerInfo>;
  };
  Testings: {
    isGrammarAcceptString(grammar: XgGrammar, input: string): Promise<boolean>;
  };
}
export interface XgGrammar {
  dispose(): void;
  toString(): string;
}
export interface XgTokenizerInfo {
  dispose(): void;
  getVocabSize(): number;
}
export interface XgCompiled {
  dispose(): void;
}
export interface XgCompiler {
  dispose(): void;
  compileGrammar(grammar: XgGrammar | string, rootRule?: string): Promise<XgCompiled>;
}
export interface XgMatcher {
  dispose(): void;
  acceptToken(token: number): boolean;
  _acceptString(text: string): boolean;
  getNextTokenBitmask(): Promise<Int32Array>;
  isTerminated(): boolean;
  reset(): void;
  findJumpForwardString(): string;
}

/**
 * Load the bundle. It is a UMD script labelled `"type": "module"`, so neither `import` (no ESM exports) nor
 * `require` (Node refuses a .js under "type": "module") reads it: it runs here inside the CommonJS wrapper it
 * expects, with `require` for its `require('url')` and `require('module')`.
 * Throws when the package is not installed (it is a devDependency).
 */
export function loadXgrammar(): XgrammarModule {
  const require = createRequire(import.meta.url);
  const file = require.resolve(XGRAMMAR_PACKAGE);
  // The bundle's Node branch reads createRequire through `await import('module')`; code evaluated here may not
  // `import()` (vitest runs tests in vm contexts without an import callback), so it gets `require('module')`, the
  // same module, instead.
  const source = readFileSync(file, "utf8");
  const code = source.replace(DYNAMIC_IMPORT, "require('module')");
  if (code === source) throw new Error(`${XGRAMMAR_PACKAGE}: its bundle no longer has the \`${DYNAMIC_IMPORT}\` qtc's loader expects (a version other than 0.1.27?)`);
  const wrapper = new Function("exports", "module", "require", "__filename", "__dirname", `${code}\n//# sourceURL=${file}`) as (
    exports: object,
    module: { exports: object },
    require: NodeRequire,
    filename: string,
    dirname: string,
  ) => void;
  const module = { exports: {} as object };
  wrapper(module.exports, module, require, file, dirname(file));
  return module.exports as XgrammarModule;
}

/** The bundle's version, read from its package.json. */
export function xgrammarVersion(): string {
  const require = createRequire(import.meta.url);
  return (require(`${XGRAMMAR_PACKAGE}/package.json`) as { version: string }).version;
}

/**
 * xgrammar's TokenizerInfo for the Qwen3 vocabulary (151,936 ids, byte-level BPE, as vLLM and SGLang build it
 * from the Hugging Face tokenizer); `<|im_end|>` and `<|endoftext|>` stop.
 */
export async function qwen3TokenizerInfo(xg: XgrammarModule): Promise<XgTokenizerInfo> {
  return byteLevelTokenizerInfo(xg, await readQwen3Vocab(), [QWEN3_TOKENS.imEnd.token, QWEN3_TOKENS.endOfText.token]);
}

/**
 * xgrammar's TokenizerInfo for a byte-level vocabulary in GGUF shape (Qwen3's, or the Qwen3.5 stand-in's 248,320
 * rows), with these stop ids.
 */
export function byteLevelTokenizerInfo(xg: XgrammarModule, vocab: { readonly tokens: readonly string[]; readonly tokenTypes: readonly number[] }, stops: readonly number[]): Promise<XgTokenizerInfo> {
  // Padding ids (past the real tokens) decode to nothing, as in the Hugging Face tokenizer vLLM and SGLang hand
  // xgrammar: an empty spelling is a token xgrammar never allows in text.
  const tokens = vocab.tokens.map((t, id) => (vocab.tokenTypes[id] === TOKEN_TYPE.UNUSED ? "" : t));
  return xg.TokenizerInfo.createTokenizerInfo(tokens, "byte_level", false, tokens.length, [...stops]);
}
