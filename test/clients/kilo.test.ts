// Owns: Kilo CLI (`kilo run`, an opencode fork: a custom OpenAI-compatible provider, Chat Completions, streamed)
// against qtc serve, configured as its docs say for a local provider (see opencode-family.ts; session ingest off
// too) and run with --auto: it sends its real tool list, gets structured tool_calls and executes one.

import { afterAll, beforeAll, describe, it } from "vitest";
import type { Qtc } from "./harness.js";
import { expectFamilyRunExecutesACall, startFamilyQtc } from "./opencode-family.js";

let qtc: Qtc;
beforeAll(async () => {
  qtc = await startFamilyQtc();
}, 120_000);
afterAll(async () => {
  await qtc?.close();
});

describe("Kilo CLI 7.7.7 on qtc serve", () => {
  it("kilo run: its real tool list, structured tool_calls, the call executed, nothing off the machine", { timeout: 240_000 }, async () => {
    await expectFamilyRunExecutesACall(
      {
        bin: "kilo",
        configSchema: "https://app.kilo.ai/config.json",
        envPrefix: "KILO",
        extraSwitches: ["SESSION_INGEST"],
        // As `kilo run` itself advises for autonomous use: a tool whose permission is "ask" (its memory recall, a
        // path outside the workspace) is otherwise auto-rejected and not run.
        runFlags: ["--auto"],
        // Kilo checks board_post's `body` as non-empty, a rule its declared schema (`{"type": "string"}`) does not
        // state, so a call valid against what it declared can be refused by Kilo itself: a random-weights model
        // that picks it with body "" failed this test (1 of 2 runs of the rehearsal). A user turns it off like this.
        toolsOff: ["board_post"],
      },
      qtc,
    );
  });
});
