// Owns: the list of CLI commands, in the order `qtc --help` shows them. Each file registers one command.

import type { Command } from "commander";
import { registerAgent } from "./agent.js";
import { registerBench } from "./bench.js";
import { registerChat } from "./chat.js";
import { registerData } from "./data.js";
import { registerFinetune } from "./finetune.js";
import { registerGrammar } from "./grammar.js";
import { registerMakeModel } from "./make-model.js";
import { registerModels } from "./models.js";
import { registerParse } from "./parse.js";
import { registerPull } from "./pull.js";
import { registerRun } from "./run.js";
import { registerServe } from "./serve.js";
import { registerTypes } from "./types.js";

export const COMMANDS: ReadonlyArray<(program: Command) => Command> = [
  registerBench,
  registerParse,
  registerGrammar,
  registerTypes,
  registerRun,
  registerAgent,
  registerChat,
  registerServe,
  registerModels,
  registerPull,
  registerMakeModel,
  registerData,
  registerFinetune,
];
