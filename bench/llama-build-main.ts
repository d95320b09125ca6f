// Owns: `npm run llama:build`: build llama-server and the trainer into the cache folder, printing each stage.

import { QtcException } from "../dist/index.js";
import { buildLlama } from "./lib/internals.js";

try {
  const layout = await buildLlama({ onProgress: (line) => process.stderr.write(`llama.cpp: ${line}\n`) });
  process.stderr.write(`llama.cpp: built in ${layout.bin}\n`);
} catch (e) {
  if (!(e instanceof QtcException)) throw e;
  process.stderr.write(`error: ${e.message}\n`);
  process.exit(e.exitCode);
}
