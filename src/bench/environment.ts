// Owns: what a report says about where it ran: versions of qtc, node-llama-cpp and Node, the platform and CPU.

import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { packageRoot } from "../model/paths.js";

function versionAt(manifest: string): string | null {
  try {
    const v = (JSON.parse(readFileSync(manifest, "utf8")) as { version?: unknown }).version;
    return typeof v === "string" ? v : null;
  } catch {
    return null;
  }
}

/** The installed version of a package, found by walking up from its resolved entry point; "unknown" if not found. */
export function packageVersion(name: string): string {
  try {
    const entry = createRequire(import.meta.url).resolve(name);
    for (let dir = path.dirname(entry); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
      const manifest = path.join(dir, "package.json");
      if (existsSync(manifest)) {
        const parsed = JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown; version?: unknown };
        if (parsed.name === name && typeof parsed.version === "string") return parsed.version;
      }
    }
  } catch {
    // fall through
  }
  return "unknown";
}

export interface BenchEnvironment {
  versions: { qtc: string; nodeLlamaCpp: string; node: string };
  platform: string;
  cpu: string;
}

/** Versions, platform and CPU of this machine. */
export function benchEnvironment(): BenchEnvironment {
  const cpus = os.cpus();
  return {
    versions: {
      qtc: versionAt(path.join(packageRoot(), "package.json")) ?? "unknown",
      nodeLlamaCpp: packageVersion("node-llama-cpp"),
      node: process.version,
    },
    platform: `${process.platform} ${process.arch}`,
    cpu: `${cpus[0]?.model.trim() ?? "unknown CPU"} × ${os.availableParallelism()}`,
  };
}
