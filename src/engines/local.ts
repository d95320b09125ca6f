// Owns: the local engine: a GGUF (file, `hf:` URI, registry name, `synthetic:*`) loaded in-process through
// node-llama-cpp, with the runtime's own token loop, matcher and budget guard (src/runtime/runtime.ts).

import { createLocalRuntime, type Runtime, type RuntimeOptions } from "../runtime/runtime.js";

/** The kind the local engine reports; it serves every model spec no remote engine claims. */
export const LOCAL_ENGINE_KIND = "local";

/** Load the model in this process (see RuntimeOptions for the defaults). */
export function createLocalEngineRuntime(options: RuntimeOptions): Promise<Runtime> {
  return createLocalRuntime(options);
}
