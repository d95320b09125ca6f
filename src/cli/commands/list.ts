// Owns: the commands `qtc --help` lists, in order: each name, its one-line summary and how to load its module.
// The installed command registers the full module of the command that runs only, so `qtc --help` and a command
// load none of the others (node-llama-cpp, fastify and the grammar compiler take seconds to import).
// test/cli/lazy-help.test.ts checks that each summary is its command's description and the order is COMMANDS'.

import type { Command } from "commander";

export interface CommandEntry {
  name: string;
  /** The command's `.description()`, word for word. */
  summary: string;
  load(): Promise<(program: Command) => Command>;
}

export const COMMAND_LIST: readonly CommandEntry[] = [
  { name: "bench", summary: "Measure tool-call validity, call rate, task success and speed, with and without the grammar, across models", load: async () => (await import("./bench.js")).registerBench },
  { name: "parse", summary: "Parse model output into tool calls with the strict post-parser; prints JSON", load: async () => (await import("./parse.js")).registerParse },
  { name: "grammar", summary: "Compile tool schemas into a GBNF grammar (prints it), or --check a text against it", load: async () => (await import("./grammar.js")).registerGrammar },
  { name: "types", summary: "Print TypeScript declarations for the tools' arguments (one interface per tool)", load: async () => (await import("./types.js")).registerTypes },
  { name: "run", summary: "Generate one assistant turn with tools and print its text, calls and errors", load: async () => (await import("./run.js")).registerRun },
  { name: "agent", summary: "Run one bench task through the agent loop and print how the run went", load: async () => (await import("./agent.js")).registerAgent },
  { name: "chat", summary: "Chat with a model in the terminal, with tools: see each call, whether it is valid, and its result", load: async () => (await import("./chat.js")).registerChat },
  { name: "serve", summary: "Serve an OpenAI- and Anthropic-compatible API whose tool calls arrive structured", load: async () => (await import("./serve.js")).registerServe },
  { name: "models", summary: "List the models qtc knows (the registry: names, repositories, files, sizes) and those in the model cache", load: async () => (await import("./models.js")).registerModels },
  { name: "pull", summary: "Download a model into the model cache (~/.cache/qtc/models, $XDG_CACHE_HOME/qtc/models, or $QTC_MODELS_DIR): a registry name, hf:<user>/<repo>/<file>.gguf, or a URL", load: async () => (await import("./pull.js")).registerPull },
  { name: "make-model", summary: "Write a synthetic Qwen3 GGUF: the real Qwen3 tokenizer and chat template, seeded random weights", load: async () => (await import("./make-model.js")).registerMakeModel },
  { name: "data", summary: "Make fine-tuning data from the train half of the bench tasks (reference fixes) and from bench transcripts", load: async () => (await import("./data.js")).registerData },
  { name: "finetune", summary: "Fine-tune an F32 GGUF on qtc data JSONL (llama.cpp's training API; loss on assistant tokens only)", load: async () => (await import("./finetune.js")).registerFinetune },
];
