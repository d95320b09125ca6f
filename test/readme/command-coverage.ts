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
  "docker build -t qtc .": {
    test: "test/readme/dockerfile.test.ts",
    evidence: ["README_DOCKER_BUILD", "COPY"],
    differs: "not run: no Docker engine runs on this machine; the test checks every file the Dockerfile copies and every script it runs",
  },
  "docker run --rm -p 8080:8080 -v qtc-models:/models qtc --model qwen3-0.6b": {
    test: "test/readme/dockerfile.test.ts",
    evidence: ["README_DOCKER_RUN", "EXPOSE", "VOLUME"],
    differs: "not run: no Docker engine runs on this machine; the test checks that the port, the volume and the flags match the image's EXPOSE, VOLUME and qtc serve's options",
  },
  "npm install qwen-tool-calls": {
    test: "test/regressions/18-npm-install.test.ts",
    evidence: ["registryBlock", '["pack", "--ignore-scripts"'],
    differs: "the package is not published from here: the test installs the packed tarball (npm pack) into an empty app instead, then runs the block's npx lines as written there, offline",
  },
  "npx -p qwen-tool-calls qtc --help": {
    test: "test/regressions/18-npm-install.test.ts",
    evidence: ["registryBlock", "npm_config_offline"],
    differs: "run as written in the app that installed the packed tarball, with npm offline (npx finds the installed package instead of fetching it)",
  },
  "npx qtc --help": {
    test: "test/readme/readme-commands.test.ts",
    evidence: ["README_HELP"],
    differs: "the clone's line runs as written in the repo; the registry block's (the same text) runs in the app of test/regressions/18-npm-install.test.ts",
  },
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
  "npx qtc serve --upstream http://127.0.0.1:8081 --upstream http://127.0.0.1:8082": {
    test: "test/readme/engine-training-commands.test.ts",
    evidence: ["argsOf("],
    differs: "the two URLs are llama-servers the test starts on free ports; the server gets --port 0",
  },
  "npx qtc serve --upstream http://127.0.0.1:1234 --upstream-kind openai": {
    test: "test/readme/engine-training-commands.test.ts",
    evidence: ["argsOf("],
    differs: "the URL is a fake chat endpoint the test starts (it returns raw <tool_call> text); the server gets --port 0",
  },
  "npx qtc bench --model synthetic:tiny --model llama-server:http://127.0.0.1:8081 --constrained --tasks 3 --seeds 1": {
    test: "test/readme/engine-training-commands.test.ts",
    evidence: ["argsOf("],
    differs: "the URL is a llama-server the test starts; plus --max-turns 1 --max-tokens 64 --out <tmp>",
  },
  "npx qtc bench --suite bfcl --model synthetic:tiny --limit 20 --constrained": {
    test: "test/bench/bfcl.test.ts",
    evidence: ['"--suite", "bfcl"', '"--constrained"'],
    differs: "BFCL's data is a download: the test runs the suite on qtc's own fixture questions (--data), --limit 2, shorter turns",
  },
  "npx qtc finetune --model synthetic:tiny --data train-data/train.jsonl --out adapter.gguf --lora 8 --alpha 16": {
    test: "test/readme/engine-training-commands.test.ts",
    evidence: ["README_LORA", "argsOf("],
    differs: "on the data the README's qtc data line wrote, plus --max-steps 1 --threads 1 (one step instead of an epoch)",
  },
  "npx qtc run --model synthetic:tiny --lora adapter.gguf --prompt \"Run the tests.\"": {
    test: "test/training/lora.test.ts",
    evidence: ['"run", "--model", "synthetic:tiny"', '"--lora", adapter'],
    differs: "the adapter is the one the test trained; the run is greedy, unconstrained and 8 tokens long, with and without it",
  },
  "npx qtc data --out train-data/": {
    test: "test/readme/engine-training-commands.test.ts",
    evidence: ["argsOf("],
    differs: "run as written, in a scratch folder that links to bench/ of the repo",
  },
  "npx qtc finetune --model synthetic:tiny --data train-data/train.jsonl --out tuned.gguf --epochs 2": {
    test: "test/readme/engine-training-commands.test.ts",
    evidence: ["argsOf("],
    differs: "plus --max-steps 2 --threads 1: two windows an epoch instead of the whole data (minutes on 2 cores)",
  },
  "npx qtc agent --task bench/tasks/fizzbuzz --model tuned.gguf --call-policy required-first": {
    test: "test/readme/engine-training-commands.test.ts",
    evidence: ["argsOf("],
    differs: "plus --max-turns 1 --max-tokens 48 --json",
  },
};
