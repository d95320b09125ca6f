// Owns: reading the flags of a bench script (`npm run bench:*`): an unknown or malformed flag is one line naming
// the script's flags and exit 2, never a stack trace; `--help` lists them. And running its main: a failure (a
// context too small for the tool list, a missing model) is one line and a non-zero exit, never a stack trace.

import { parseArgs, type ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

export function readBenchFlags<O extends Options>(script: string, options: O): ReturnType<typeof parseArgs<{ options: O }>>["values"] {
  const flags = Object.entries(options)
    .map(([name, o]) => (o.type === "boolean" ? `--${name}` : `--${name} ${o.default === undefined ? "VALUE" : JSON.stringify(o.default)}`))
    .join(", ");
  if (process.argv.slice(2).includes("--help")) {
    process.stdout.write(`${script} flags (defaults shown): ${flags}\n`);
    process.exit(0);
  }
  try {
    return parseArgs({ options }).values;
  } catch (e) {
    const why = e instanceof Error ? e.message.split("\n")[0] : String(e);
    process.stderr.write(`${script}: ${why}\nFlags (defaults shown): ${flags}; --help lists them.\n`);
    process.exit(2);
  }
}

/** A flag value the script cannot use: one line saying what it takes, and exit 2 (as a malformed flag). */
export function refuseFlag(script: string, message: string): never {
  process.stderr.write(`${script}: ${message}\n`);
  process.exit(2);
}

/** Run a bench script's main; an error ends it with one line and its exit code (a qtc error's own, else 1). */
export async function runBenchScript(script: string, main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (e) {
    process.stderr.write(`${script}: ${e instanceof Error ? e.message : String(e)}\n`);
    const code = (e as { exitCode?: unknown }).exitCode;
    process.exitCode = typeof code === "number" && code > 0 ? code : 1;
  }
}
