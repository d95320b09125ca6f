// Owns: reading src/ the way the TypeScript compiler does, for the architecture tests: each file's parsed AST,
// the files it imports (resolved by ts.resolveModuleName under the repo's tsconfig), the import circles, and the
// length of every function counted with the closures inside it.

import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

/** The repository root (this file lives in test/helpers/). */
export const REPO_ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..", "..");

/** One import edge: `from` imports `to` (both repo-relative, forward slashes); `line` is 1-based in `from`. */
export interface ImportEdge {
  from: string;
  to: string;
  line: number;
  typeOnly: boolean;
  /** An `import()` call (loaded on demand): still an edge of the graph. */
  dynamic?: boolean;
}

/** The project's own .ts files under `dir` (not installed packages: test/clients/ has a node_modules of its own). */
function listTs(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(entry.name === "node_modules" ? [] : listTs(path)));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(path);
  }
  return out.sort();
}

const rel = (path: string): string => relative(REPO_ROOT, path).split(sep).join("/");

function compilerOptions(root: string): ts.CompilerOptions {
  const configPath = join(root, "tsconfig.json");
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, "\n"));
  return ts.parseJsonConfigFileContent(config.config, ts.sys, root).options;
}

/** Parse every .ts file under `root/dir` (default src/). Keys are repo-relative paths. */
export function parseSources(dir = "src", root = REPO_ROOT): Map<string, ts.SourceFile> {
  const files = new Map<string, ts.SourceFile>();
  for (const path of listTs(join(root, dir))) {
    files.set(relative(root, path).split(sep).join("/"), ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.ES2022, true));
  }
  return files;
}

interface Specifier {
  /** The string literal that names the module (its position gives the line and the resolution mode). */
  literal: ts.StringLiteralLike;
  typeOnly: boolean;
  dynamic?: boolean;
}

/** Every module specifier a file names: static imports and re-exports, `import()` calls, `import("x").T` types. */
function specifiersOf(file: ts.SourceFile): Specifier[] {
  const out: Specifier[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push({ literal: node.moduleSpecifier, typeOnly: node.importClause?.isTypeOnly ?? false });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push({ literal: node.moduleSpecifier, typeOnly: node.isTypeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) out.push({ literal: arg, typeOnly: false, dynamic: true });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push({ literal: node.argument.literal, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/**
 * The import graph of the files in `files`, resolved with the compiler's own module resolution under the repo's
 * tsconfig (NodeNext: `./x.js` names `./x.ts`). Edges to files outside the set (packages, node:) are dropped.
 */
export function importGraph(files: Map<string, ts.SourceFile>, root = REPO_ROOT): ImportEdge[] {
  const options = compilerOptions(root);
  const cache = ts.createModuleResolutionCache(root, (name) => name, options);
  const edges: ImportEdge[] = [];
  for (const [from, file] of files) {
    for (const spec of specifiersOf(file)) {
      const mode = ts.getModeForUsageLocation(file, spec.literal, options);
      const resolved = ts.resolveModuleName(spec.literal.text, file.fileName, options, ts.sys, cache, undefined, mode).resolvedModule;
      if (!resolved || resolved.isExternalLibraryImport) continue;
      const to = relative(root, resolved.resolvedFileName).split(sep).join("/");
      if (!files.has(to)) continue;
      const line = file.getLineAndCharacterOfPosition(spec.literal.getStart(file)).line + 1;
      edges.push({ from, to, line, typeOnly: spec.typeOnly, ...(spec.dynamic ? { dynamic: true } : {}) });
    }
  }
  return edges;
}

/** One import of a package (not a file of the set): `from` names `specifier` (e.g. `node-llama-cpp`) at `line`. */
export interface PackageImport {
  from: string;
  specifier: string;
  line: number;
  typeOnly: boolean;
}

/** Every import of something that is not a relative path (packages and `node:` modules), type-only ones too. */
export function packageImports(files: Map<string, ts.SourceFile>): PackageImport[] {
  const out: PackageImport[] = [];
  for (const [from, file] of files) {
    for (const spec of specifiersOf(file)) {
      if (spec.literal.text.startsWith(".")) continue;
      const line = file.getLineAndCharacterOfPosition(spec.literal.getStart(file)).line + 1;
      out.push({ from, specifier: spec.literal.text, line, typeOnly: spec.typeOnly });
    }
  }
  return out;
}

/**
 * The import circles: each strongly connected component of more than one file (or a file importing itself),
 * as a sorted list of its files, found with Tarjan's algorithm.
 */
export function importCircles(nodes: Iterable<string>, edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const node of nodes) next.set(node, []);
  for (const edge of edges) next.get(edge.from)?.push(edge.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let counter = 0;
  const strongConnect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        strongConnect(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (next.get(node) ?? []).includes(node)) circles.push(component.sort());
  };
  for (const node of next.keys()) if (!index.has(node)) strongConnect(node);
  return circles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** One function-like node and its length in lines, inner closures included (they sit inside its span). */
export interface FunctionSize {
  file: string;
  name: string;
  line: number;
  lines: number;
}

function nameOf(node: ts.FunctionLikeDeclaration, file: ts.SourceFile): string {
  if (node.name) return node.name.getText(file);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(file);
  return "(anonymous)";
}

/** Every function, method, accessor, constructor and arrow function in `files`, with its span in lines. */
export function functionSizes(files: Map<string, ts.SourceFile>): FunctionSize[] {
  const out: FunctionSize[] = [];
  for (const [path, file] of files) {
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const fn = node as ts.FunctionLikeDeclaration;
        const start = file.getLineAndCharacterOfPosition(fn.getStart(file)).line;
        const end = file.getLineAndCharacterOfPosition(fn.getEnd()).line;
        out.push({ file: path, name: nameOf(fn, file), line: start + 1, lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return out;
}
