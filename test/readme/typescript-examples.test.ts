// Issue 18, item 2: the README's library example did not type-check under `tsc --strict` (`type: "function"`
// widened to string). Every ```ts block of README.md is type-checked here, strict, against the built package's
// types (dist/index.d.ts, what an app that installs qwen-tool-calls sees) the clients the README shows (openai) and node-llama-cpp (the own-sampler example loads a model with it).
//
// A block with no import continues the block before it (the README shows a client once, then uses it again):
// it is checked after that block, in a nested scope, so its names may shadow the earlier ones.

import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, expect, it } from "vitest";
import { REPO, readmeText, typescriptBlocks, type FencedBlock } from "./readme-blocks.js";

const app = mkdtempSync(join(tmpdir(), "qtc-readme-ts-"));
afterAll(() => rmSync(app, { recursive: true, force: true }));

/** A temporary app where `qwen-tool-calls` resolves to this repo as a package (exports → dist/index.d.ts). */
function makeApp(): void {
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "readme-app", private: true, type: "module" }));
  mkdirSync(join(app, "node_modules"));
  symlinkSync(REPO, join(app, "node_modules", "qwen-tool-calls"), "dir");
  for (const dep of ["openai", "@anthropic-ai", "node-llama-cpp"]) symlinkSync(join(REPO, "node_modules", dep), join(app, "node_modules", dep), "dir");
}

const hasImport = (code: string) => /^\s*import\s/m.test(code);

/** Each block's file text: a block without imports is appended to the one before it, in its own scope. */
function exampleFiles(blocks: FencedBlock[]): { block: FencedBlock; file: string; text: string }[] {
  const files: { block: FencedBlock; file: string; text: string }[] = [];
  for (const block of blocks) {
    const previous = files.at(-1);
    const text = hasImport(block.code) || !previous ? `${block.code}\nexport {};\n` : `${previous.text}\n{\n${block.code}\n}\n`;
    files.push({ block, file: join(app, `readme-line-${block.line}.ts`), text });
  }
  return files;
}

function diagnosticsOf(files: string[]): readonly ts.Diagnostic[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2023.d.ts"],
    types: ["node"],
    typeRoots: [join(REPO, "node_modules", "@types")],
    skipLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program);
}

function describeDiagnostic(d: ts.Diagnostic): string {
  const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
  if (!d.file || d.start === undefined) return message;
  const { line } = d.file.getLineAndCharacterOfPosition(d.start);
  const source = d.file.text.split("\n")[line]?.trim();
  return `${d.file.fileName.split("/").pop()}: ${message}\n    at: ${source}`;
}

it("every TypeScript example in README.md type-checks under --strict against the built package", () => {
  expect(existsSync(join(REPO, "dist", "index.d.ts")), "build first: npx tsc -p tsconfig.json").toBe(true);
  const blocks = typescriptBlocks(readmeText());
  expect(blocks.length).toBeGreaterThanOrEqual(3);
  makeApp();
  const files = exampleFiles(blocks);
  for (const { file, text } of files) writeFileSync(file, text);
  const problems = diagnosticsOf(files.map((f) => f.file)).map(describeDiagnostic);
  // The file name carries the README line of the block's opening fence.
  expect(problems, "README.md TypeScript examples (readme-line-N.ts = the block at README line N)").toEqual([]);
}, 60_000);

it("the check catches a README example that does not type-check", () => {
  const blocks = [{ lang: "ts", line: 1, code: 'import { createRuntime } from "qwen-tool-calls";\nconst tools = [{ type: "function", function: { name: "f" } }];\nawait (await createRuntime({ model: "x" })).generate({ messages: [], tools });' }];
  if (!existsSync(join(app, "node_modules"))) makeApp();
  const files = exampleFiles(blocks);
  for (const { file, text } of files) writeFileSync(file, text);
  expect(diagnosticsOf(files.map((f) => f.file)).length).toBeGreaterThan(0);
}, 60_000);
