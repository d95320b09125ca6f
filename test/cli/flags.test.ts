// One spelling per flag: every command that takes a context size spells it --context-size; the old --context
// still parses where it existed (serve, bench) but is hidden from help.

import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/cli.js";

const command = (name: string) => buildProgram().commands.find((c) => c.name() === name)!;

describe("flag spellings", () => {
  it("--context-size on run, agent, serve and bench; --context in no help", () => {
    for (const name of ["run", "agent", "serve", "bench"]) {
      const help = command(name).helpInformation();
      expect(help, name).toContain("--context-size <n>");
      expect(help, name).not.toMatch(/--context </);
    }
  });

  it("keeps --context as a hidden alias where it existed", () => {
    for (const name of ["serve", "bench"]) {
      const options = command(name).options.map((o) => o.long);
      expect(options, name).toContain("--context");
    }
  });
});
