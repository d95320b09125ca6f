// One spelling per flag: every command that takes a context size spells it --context-size; the old --context
// still parses where it existed (serve, bench) but is hidden from help.

import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/cli.js";
import { threadsHelp, threadsText } from "../../src/cli/options.js";

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

describe("one wording per flag default", () => {
  it("--threads: the same help on every command that runs a model with the cores-not-busy default", () => {
    for (const name of ["run", "agent", "chat", "bench", "serve"]) {
      const option = command(name).options.find((o) => o.long === "--threads")!;
      expect(option.description, name).toBe(threadsHelp());
      // commander would append a second "(default: …)" of its own
      expect(option.defaultValue, name).toBeUndefined();
    }
    expect(threadsHelp()).toMatch(/^CPU threads \(default: the cores not busy when qtc starts, 1 to 4; here now [1-4]\)$/);
  });

  it("counts threads in words: 1 thread, 2 threads", () => {
    expect(threadsText(1)).toBe("1 thread");
    expect(threadsText(2)).toBe("2 threads");
  });
});
