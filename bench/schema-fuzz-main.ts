// Owns: `npm run fuzz:schemas`: mutated schemas (the grammar corpus, the client tool lists, and a MaskBench copy
// with `--data DIR`) through the compiler; prints the failures and exits 1 when there is any.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { dataFolder } from "./lib/maskbench-data.js";
import { fuzzSchemas } from "./lib/schema-fuzz.js";
import { readBenchFlags } from "./lib/script-args.js";

const flags = readBenchFlags("fuzz:schemas", { runs: { type: "string", default: "5000" }, seed: { type: "string", default: "1" }, data: { type: "string" } });
const root = new URL("../", import.meta.url).pathname;
const seeds: unknown[] = [];
for (const f of readdirSync(join(root, "test/grammar/corpus")).filter((x) => x.endsWith(".json"))) seeds.push(JSON.parse(readFileSync(join(root, "test/grammar/corpus", f), "utf8")).tool.parameters);
const dir = flags.data ? dataFolder(flags.data) : undefined;
if (dir) for (const f of readdirSync(dir).filter((x) => x.endsWith(".json")).slice(0, 2000)) seeds.push(JSON.parse(readFileSync(join(dir, f), "utf8")).schema);
const r = fuzzSchemas(seeds, Number(flags.runs), Number(flags.seed));
for (const f of r.failures.slice(0, 20)) process.stdout.write(`${f.problems.join("; ")}\n  ${JSON.stringify(f.schema).slice(0, 300)}\n`);
process.stdout.write(`fuzz:schemas: ${r.runs} mutants of ${seeds.length} schemas, ${r.failures.length} with an exception or an unstable code\n`);
process.exitCode = r.failures.length > 0 ? 1 : 0;
