// `npm run llama:build` shows how far the build is: BuildProgress reads make's `[ 42%]` and ninja's `[12/345]`
// lines from the build output, in whatever chunks they arrive, and reports each new 5% step once.

import { describe, expect, it } from "vitest";
import { BuildProgress } from "../../src/engines/llama-build.js";

const MAKE = [
  "[  0%] Building C object ggml/src/CMakeFiles/ggml-base.dir/ggml.c.o",
  "[  1%] Building CXX object ggml/src/CMakeFiles/ggml-base.dir/ggml.cpp.o",
  "[  4%] Building C object ggml/src/CMakeFiles/ggml-base.dir/ggml-alloc.c.o",
  "[  5%] Linking CXX shared library libggml-base.so",
  "warning: something unrelated [ 99%] in the middle of a line",
  "[ 42%] Building CXX object src/CMakeFiles/llama.dir/llama-model.cpp.o",
  "[ 43%] Building CXX object src/CMakeFiles/llama.dir/llama-vocab.cpp.o",
  "[100%] Built target llama-server",
].join("\n") + "\n";

function reports(chunks: string[]): string[] {
  const out: string[] = [];
  const p = new BuildProgress((pct, step) => out.push(`${pct}% ${step}`));
  for (const c of chunks) p.feed(c);
  return out;
}

describe("BuildProgress", () => {
  it("reports each new 5% step of make's output once, naming the file being compiled", () => {
    expect(reports([MAKE])).toEqual(["0% ggml.c", "5% Linking CXX shared library libggml-base.so", "42% llama-model.cpp", "100% Built target llama-server"]);
  });

  it("the same reports whatever the chunks (a line split across two reads is read whole)", () => {
    const bytes = [...MAKE];
    for (const size of [1, 7, 64]) {
      const chunks: string[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.slice(i, i + size).join(""));
      expect(reports(chunks), `chunks of ${size}`).toEqual(reports([MAKE]));
    }
  });

  it("reads ninja's [done/total] lines as a percentage", () => {
    expect(reports(["[1/200] Building CXX object a.o\n[30/200] Building CXX object x/b.cpp.o\n[200/200] Linking CXX executable bin/llama-server\n"])).toEqual([
      "0% a",
      "15% b.cpp",
      "100% Linking CXX executable bin/llama-server",
    ]);
  });
});
