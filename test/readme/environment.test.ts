// Every environment variable qtc reads is documented in docs/environment.md, and the README points there: the
// names are collected from the source (process.env.NAME, the `*_ENV = "NAME"` constants, and `$NAME` in its
// comments), so a variable added without a line in the doc fails here.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { REPO, readmeText } from "./readme-blocks.js";

/** `$ORIGIN` is an rpath token, and PATH is only passed through to child processes: neither is qtc's setting. */
const NOT_SETTINGS = new Set(["ORIGIN", "PATH"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => join(e.parentPath, e.name));
}

export function variablesReadBy(sources: readonly string[]): string[] {
  const names = new Set<string>();
  for (const text of sources) {
    for (const m of text.matchAll(/process\.env\.([A-Z_][A-Z0-9_]*)/g)) names.add(m[1]!);
    for (const m of text.matchAll(/_ENV = "([A-Z_][A-Z0-9_]*)"/g)) names.add(m[1]!);
    for (const m of text.matchAll(/\$([A-Z][A-Z0-9_]{2,})\b/g)) names.add(m[1]!);
  }
  return [...names].filter((n) => !NOT_SETTINGS.has(n)).sort();
}

it("docs/environment.md lists every variable the source reads", () => {
  const names = variablesReadBy(sourceFiles(join(REPO, "src")).map((f) => readFileSync(f, "utf8")));
  expect(names).toEqual(expect.arrayContaining(["HF_TOKEN", "QTC_DEBUG", "QTC_MODELS_DIR", "QTC_LLAMA_DIR", "QTC_HF_ENDPOINT", "HF_ENDPOINT", "MODEL_ENDPOINT"]));
  const doc = readFileSync(join(REPO, "docs", "environment.md"), "utf8");
  expect(names.filter((n) => !doc.includes(`\`${n}\``))).toEqual([]);
});

it("finds a variable in each form it is read", () => {
  expect(variablesReadBy(['process.env.QTC_X', 'export const Y_ENV = "QTC_Y";', "// or $QTC_Z when set", "`$ORIGIN`"])).toEqual(["QTC_X", "QTC_Y", "QTC_Z"]);
});

it("the README links the environment, the docs index and troubleshooting", () => {
  const readme = readmeText();
  for (const doc of ["docs/environment.md", "docs/README.md", "docs/troubleshooting.md"]) expect(readme).toContain(`](${doc})`);
});
