#!/usr/bin/env node
// The installed `qtc` command: runs the compiled CLI (built by `npm install` through the prepare script).
import { main } from "../dist/cli/main.js";

// A reader that closes early (`qtc grammar … | head -1`) is not an error: what it read is all it wanted. Every
// command's output goes through these two streams, so this one handler covers them all; exit 0 like the
// reader's side of the pipeline. Any other stream error still surfaces.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error && error.code === "EPIPE") process.exit(0);
    throw error;
  });
}

process.exitCode = await main(process.argv);
