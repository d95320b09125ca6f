// Owns: opencode (`opencode run`, a custom OpenAI-compatible provider, Chat Completions, streamed) against qtc
// serve, configured as its docs say for a local provider (see opencode-family.ts): it sends its real tool list, gets
// structured tool_calls and executes one.

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

describe("opencode 1.18.33 on qtc serve", () => {
  it("opencode run: its real tool list, structured tool_calls, the call executed, nothing off the machine", { timeout: 240_000 }, async () => {
    await expectFamilyRunExecutesACall({ bin: "opencode", configSchema: "https://opencode.ai/config.json", envPrefix: "OPENCODE" }, qtc);
  });
});
