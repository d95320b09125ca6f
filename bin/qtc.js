#!/usr/bin/env node
// The installed `qtc` command: runs the compiled CLI (built by `npm install` through the prepare script).
import { main } from "../dist/cli/cli.js";

process.exitCode = await main(process.argv);
