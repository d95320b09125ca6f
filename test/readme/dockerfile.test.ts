// The Dockerfiles cannot be built here (no Docker engine runs on this machine), so this checks what can be
// checked without one: every file they COPY exists, every npm script they run is in package.json, the
// entrypoint is `qtc serve` with flags serve takes, and the README's `docker build` / `docker run` lines match
// the image (the port it exposes, the models volume, the flags passed after the image name).

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/cli.js";
import { REPO, readmeText, shellCommands } from "./readme-blocks.js";

const README_DOCKER_BUILD = "docker build -t qtc .";
const README_DOCKER_RUN = "docker run --rm -p 8080:8080 -v qtc-models:/models qtc --model qwen3-0.6b";

/** A Dockerfile's instructions (continued lines joined, comments dropped). */
function instructions(file: string): { op: string; args: string }[] {
  const text = readFileSync(join(REPO, file), "utf8").replace(/\\\n/g, " ");
  return text
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.trim().startsWith("#"))
    .map((l) => {
      const [op, ...rest] = l.trim().split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(" ") };
    });
}

const serveOptions = () => buildProgram().commands.find((c) => c.name() === "serve")!.options.map((o) => o.long);

for (const file of ["Dockerfile", "Dockerfile.cuda"]) {
  describe(file, () => {
    const steps = instructions(file);

    it("copies only files and folders that exist", () => {
      const sources = steps.filter((s) => s.op === "COPY").flatMap((s) => s.args.split(" ").slice(0, -1));
      expect(sources.length).toBeGreaterThan(3);
      expect(sources.filter((src) => !existsSync(join(REPO, src)))).toEqual([]);
    });

    it("runs npm scripts package.json has, and the build", () => {
      const scripts = Object.keys((JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts);
      const runs = steps.filter((s) => s.op === "RUN").map((s) => s.args).join(" ");
      const named = [...runs.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]!);
      expect(named).toContain("build");
      expect(named.filter((n) => !scripts.includes(n))).toEqual([]);
      expect(runs).toContain("npm ci");
    });

    it("starts qtc serve on all interfaces, port 8080, models in the /models volume", () => {
      const entry = JSON.parse(steps.find((s) => s.op === "ENTRYPOINT")!.args) as string[];
      expect(entry.slice(0, 3)).toEqual(["node", "bin/qtc.js", "serve"]);
      expect(existsSync(join(REPO, entry[1]!))).toBe(true);
      const flags = [...entry.slice(3), ...(JSON.parse(steps.find((s) => s.op === "CMD")!.args) as string[])].filter((a) => a.startsWith("--"));
      expect(flags.filter((f) => !serveOptions().includes(f))).toEqual([]);
      expect(entry.join(" ")).toContain("--host 0.0.0.0 --port 8080");
      expect(steps.find((s) => s.op === "EXPOSE")!.args).toBe("8080");
      expect(steps.find((s) => s.op === "VOLUME")!.args).toBe('["/models"]');
      expect(steps.find((s) => s.op === "ENV")!.args).toContain("QTC_MODELS_DIR=/models");
    });
  });
}

it("the README's docker lines match the image", () => {
  const commands = shellCommands(readmeText()).map((c) => c.command);
  expect(commands).toContain(README_DOCKER_BUILD);
  expect(commands).toContain(README_DOCKER_RUN);
  const run = README_DOCKER_RUN.split(" ");
  expect(run[run.indexOf("-p") + 1]).toBe("8080:8080");
  expect(run[run.indexOf("-v") + 1]!.split(":")[1]).toBe("/models");
  const afterImage = run.slice(run.indexOf("qtc", run.indexOf("-v") + 2) + 1);
  expect(afterImage.filter((a) => a.startsWith("--")).filter((f) => !serveOptions().includes(f))).toEqual([]);
});
