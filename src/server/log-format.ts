// Owns: the server's log settings (`--log-level`, `--log-format json|text`) as fastify logger options: pino's JSON
// lines as they are, or the same records as one readable `key=value` line each.

import { Writable } from "node:stream";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ["text", "json"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export const LOG_DEFAULTS = Object.freeze({ level: "info" as LogLevel, format: "text" as LogFormat });

/** pino's numeric levels, named. */
const LEVEL_NAMES: Record<number, string> = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL" };

/** Fields pino adds that the text line shows in its own place (or not at all). */
const OWN_FIELDS = new Set(["level", "time", "msg", "pid", "hostname", "v", "reqId"]);

/** Fastify logger options writing to `out` (default: stderr, so stdout keeps only the banner). */
export function serverLogger(level: LogLevel, format: LogFormat, out: NodeJS.WritableStream = process.stderr): Record<string, unknown> {
  return { level, stream: format === "json" ? out : textStream(out) };
}

/** One JSON record as `TIME LEVEL message key=value …`. */
export function textLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.trimEnd();
  }
  const time = typeof record.time === "number" ? new Date(record.time).toISOString() : "";
  const level = LEVEL_NAMES[record.level as number] ?? String(record.level);
  const fields = Object.entries(record)
    .filter(([key]) => !OWN_FIELDS.has(key))
    .map(([key, value]) => `${key}=${typeof value === "string" && !/[\s"=]/.test(value) ? value : JSON.stringify(value)}`);
  return [time, level, String(record.msg ?? ""), ...fields].filter((part) => part !== "").join(" ");
}

function textStream(out: NodeJS.WritableStream): Writable {
  let pending = "";
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      pending += chunk.toString();
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) out.write(`${textLine(line)}\n`);
      done();
    },
  });
}
