// Owns: which test runs each shell command of README.md that .ci/run does not run as written. A README command
// that nothing runs is a defect (issue 18): test/readme/shell-commands.test.ts fails on a command missing here.
//
// Each entry names the test file that runs the command, strings that must occur in that file (what shows it
// runs this command), and, where the test cannot run it exactly as written, why and how it differs. The check
// also requires every `--flag` and every bare word of the command (after `npx qtc` / `npm run`) to occur in the
// named file, so a flag added to the README needs a test that passes it.

export interface CommandCoverage {
  /** The test file (repo-relative) that runs the command. */
  test: string;
  /** Strings that must occur in that file. */
  evidence: readonly string[];
  /** How and why the test's run differs from the README's line, when it does. */
  differs?: string;
}

export const README_COMMAND_COVERAGE: Readonly<Record<string, CommandCoverage>> = {
  "npx qtc bench --constrained": {
    test: "test/regressions/18-npm-install.test.ts",
    evidence: ['"qtc", "bench", "--constrained"'],
    differs: "the default model is a 640 MB download and the full bench takes hours: the test runs it from an app that installed the packed tarball, on synthetic:tiny, 1 task, 1 seed",
  },
  "npx qtc bench --constrained --reference node-llama-cpp --model synthetic:tiny --tasks 5 --seeds 2 --threads 1": {
    test: "test/readme/readme-commands.test.ts",
    evidence: ["README_BENCH", "--max-turns"],
    differs: "run as written plus --max-turns 1 --max-tokens 64 --out <tmp>, so it takes seconds instead of minutes",
  },
  "npx qtc serve --model synthetic:tiny --port 8080 --parallel 4": {
    test: "test/readme/readme-commands.test.ts",
    evidence: ["README_SERVE", "/health"],
    differs: "run as written except --port 8080 becomes a free port (other suites may hold 8080)",
  },
  "npm run tasks:check": {
    test: "test/harness/tasks-check.test.ts",
    evidence: ["checkTasks(", '"bench", "tasks"'],
    differs: "the test calls checkTasks on the 40 shipped tasks, the function the script runs",
  },
  "npm run grammars": {
    test: "test/grammar/harness-grammars.test.ts",
    evidence: ["harnessGrammarFiles"],
    differs: "the test compares grammars/ with harnessGrammarFiles(), what the script writes, instead of rewriting the folder",
  },
  "npm run soak": {
    test: "test/server/soak.test.ts",
    evidence: ["QTC_SOAK_REQUESTS"],
    differs: "npm run soak is this test file with QTC_SOAK_REQUESTS=2000; npm test runs it with its default count",
  },
  "npm run fuzz": {
    test: "test/parse/fuzz.test.ts",
    evidence: ["runParseFuzz("],
    differs: "the test runs the same fuzz (runParseFuzz) on 30,000 outputs instead of 200,000",
  },
  "qtc serve --upstream http://127.0.0.1:8080 --upstream http://127.0.0.1:8081": {
    test: "test/readme/engine-training-commands.test.ts",
    evidence: ["argsOf("],
    differs: "the two URLs are llama-servers the test starts on free ports; the server gets --port 0",
  },
  "qtc serve --upstream http://127.0.0.1:1234 --upstream-kind openai": {
    test: "test/readme/engine-training-commands.test.ts",
    evidence: ["argsOf("],
    differs: "the URL is a fake chat endpoint the test starts (it returns raw <tool_call> text); the server gets --port 0",
  },
  "qtc bench --model synthetic:tiny --model llama-server:http://127.0.0.1:8080 --constrained --tasks 3 --seeds 1": {
    test: "test/readme/engine-training-commands.test.ts",
    evidence: ["argsOf("],
    differs: "the URL is a llama-server the test starts; plus --max-turns 1 --max-tokens 64 --out <tmp>",
  },
  "qtc bench --suite bfcl --model synthetic:tiny --limit 20 --constrained": {
    test: "test/bench/bfcl.test.ts",
    evidence: ['"--suite", "bfcl"', '"--constrained"'],
    differs: "BFCL's data is a download: the test runs the suite on qtc's own fixture questions (--data), --limit 2, shorter turns",
  },
  "qtc finetune --model synthetic:tiny --data data/train.jsonl --out adapter.gguf --lora 8 --alpha 16": {
    test: "test/training/lora.test.ts",
    evidence: ['"finetune", "--model", "synthetic:tiny"', '"--lora", "8", "--alpha", "16"'],
    differs: "one short epoch (--ctx 256 --max-steps 1) on the fizzbuzz demonstration, written as data/train.jsonl in a temporary folder",
  },
  "qtc run --model synthetic:tiny --lora adapter.gguf --prompt \"Run the tests.\"": {
    test: "test/training/lora.test.ts",
    evidence: ['"run", "--model", "synthetic:tiny"', '"--lora", adapter'],
    differs: "the adapter is the one the test trained; the run is greedy, unconstrained and 8 tokens long, with and without it",
  },
  "qtc data --out data/": {
    test: "test/readme/engine-training-commands.test.ts",
    evidence: ["argsOf("],
    differs: "run as written, in a scratch folder that links to bench/ of the repo",
  },
  "qtc finetune --model synthetic:tiny --data data/train.jsonl --out tuned.gguf --epochs 2": {
    test: "test/readme/engine-training-commands.test.ts",
    evidence: ["argsOf("],
    differs: "plus --max-steps 2 --threads 1: two windows an epoch instead of the whole data (minutes on 2 cores)",
  },
  "qtc agent --task bench/tasks/fizzbuzz --model tuned.gguf --call-policy required-first": {
    test: "test/readme/engine-training-commands.test.ts",
    evidence: ["argsOf("],
    differs: "plus --max-turns 1 --max-tokens 48 --json",
  },
};
