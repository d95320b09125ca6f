// Owns: the native sources' layering: each header in native/ stands on its own. It is compiled alone (a file that
// includes only it) with the compiler the trainer is built with, so a header that leans on a function or an include
// of the .cpp that includes it (the old qtc-tokenize.hpp calling qtc-finetune.cpp's die()) fails here. Needs a C++
// compiler and llama.cpp's headers (`npm run llama:build`, which .ci/run runs first); without them it fails and says
// which is missing, it never skips.

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { llamaLayout } from "../../src/engines/llama-build.js";
import { REPO_ROOT } from "../helpers/source-graph.js";

const NATIVE = join(REPO_ROOT, "native");
const headers = readdirSync(NATIVE).filter((f) => /\.(h|hpp)$/.test(f)).sort();
const compiler = process.env.CXX ?? "g++";
const layout = llamaLayout();
const includeDirs = [join(layout.src, "include"), join(layout.src, "ggml", "include")];
const scratch = mkdtempSync(join(tmpdir(), "qtc-native-headers-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Compiles a translation unit that includes only `header` (found under `dir`): the exit status and the errors. */
function compileAlone(header: string, dir: string): { status: number | null; errors: string } {
  const r = spawnSync(compiler, ["-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-x", "c++", `-I${dir}`, ...includeDirs.map((d) => `-I${d}`), "-"], {
    input: `#include "${header}"\n`,
    encoding: "utf8",
  });
  return { status: r.status, errors: r.error ? String(r.error) : r.stderr.slice(-3000) };
}

describe("native/ headers", () => {
  it("has a C++ compiler and llama.cpp's headers to check them with", () => {
    const found = spawnSync(compiler, ["--version"], { encoding: "utf8" });
    expect(found.status, `${compiler} is not installed (set CXX, or install g++: apt-get install -y g++)`).toBe(0);
    expect(existsSync(join(includeDirs[0]!, "llama.h")), `llama.cpp's headers are not in ${layout.src}: run npm run llama:build (or set QTC_LLAMA_DIR)`).toBe(true);
  });

  it("finds the headers it checks (the list is not empty by accident)", () => {
    expect(headers).toContain("qtc-tokenize.hpp");
  });

  it("includes only headers (never a .c or .cpp)", () => {
    const offenders = headers.flatMap((h) =>
      [...readFileSync(join(NATIVE, h), "utf8").matchAll(/^\s*#\s*include\s*[<"]([^>"]+)[>"]/gm)].map((m) => m[1]!).filter((inc) => /\.(c|cc|cpp|cxx)$/.test(inc)).map((inc) => `${h} → ${inc}`),
    );
    expect(offenders).toEqual([]);
  });

  it.each(headers)("%s compiles alone: it declares or includes everything it uses", (header) => {
    const r = compileAlone(header, NATIVE);
    expect(r.status, r.errors).toBe(0);
  });

  it("the check fails a header that calls a function only its includer defines", () => {
    const dir = join(scratch, "leaning");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "leaning.hpp"), '#pragma once\n#include <string>\ninline void check(bool ok) { if (!ok) die("internal", std::string("broken")); }\n');
    const r = compileAlone("leaning.hpp", dir);
    expect(r.status).not.toBe(0);
    expect(r.errors).toMatch(/die.{0,3} was not declared|undeclared identifier 'die'/);
  });
});
