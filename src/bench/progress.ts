// Owns: showing a bench's progress: a cli-progress bar (runs done, ETA, the last run) on a terminal, one plain
// line per finished run otherwise (logs, CI, pipes).

import cliProgress from "cli-progress";
import type { BenchEvent } from "./run-bench.js";
import type { BenchRunRecord } from "./types.js";

/** A short description of a finished run. */
export function describeRun(r: BenchRunRecord): string {
  const secs = (r.timings.totalMs / 1000).toFixed(1);
  return (
    `${r.bench.model} ${r.bench.mode} ${r.task} seed ${r.seed}: ${r.status}, tests ${r.testsPassed ? "pass" : "fail"}, ` +
    `${r.counts.valid}/${r.counts.blocks} blocks valid, ${r.tokens.completion} tokens, ${secs} s`
  );
}

export interface ProgressReporter {
  onEvent(event: BenchEvent): void;
  /** Stop the bar (leave the terminal clean) before anything else is printed. */
  stop(): void;
}

/** A reporter writing to `stream`: a bar when it is a TTY (and `tty` is not false), plain lines otherwise. */
export function createProgress(stream: NodeJS.WriteStream = process.stderr, opts: { tty?: boolean } = {}): ProgressReporter {
  const tty = opts.tty ?? stream.isTTY === true;
  if (!tty) {
    return {
      onEvent(e) {
        if (e.type === "start") {
          stream.write(`qtc bench: ${e.planned} runs${e.done ? ` (${e.done} already done)` : ""} → ${e.dir}\n`);
        } else if (e.type === "run") {
          stream.write(`[${e.done}/${e.planned}] ${describeRun(e.record)}\n`);
        } else stream.write("qtc bench: stopping after the current run (Ctrl-C again to quit at once)\n");
      },
      stop() {},
    };
  }
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: "bench |{bar}| {value}/{total} runs | elapsed {duration_formatted} | ETA {eta_formatted} | {last}",
      barsize: 24,
      hideCursor: true,
      etaBuffer: 20,
      clearOnComplete: false,
      forceRedraw: true,
    },
    cliProgress.Presets.shades_classic,
  );
  let running = false;
  return {
    onEvent(e) {
      if (e.type === "start") {
        stream.write(`qtc bench: ${e.planned} runs → ${e.dir}\n`);
        bar.start(e.planned, e.done, { last: e.done ? `resuming after ${e.done} runs` : "loading the model…" });
        running = true;
      } else if (e.type === "run") {
        bar.update(e.done, { last: describeRun(e.record).slice(0, 80) });
      } else bar.update({ last: "stopping after the current run (Ctrl-C again to quit at once)" });
    },
    stop() {
      if (running) bar.stop();
      running = false;
    },
  };
}
