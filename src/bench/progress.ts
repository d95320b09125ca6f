// Owns: showing a bench's progress. On a terminal: one line per finished run and a status line under them (runs
// done, elapsed, an ETA from this session's finished runs, what is happening now: loading a model, a run), every
// line fitted to the terminal's width. Otherwise (logs, CI, pipes): one plain line per step and per finished run.

import type { BenchEvent } from "./run-bench.js";
import { duration, truncate, wrap } from "./format.js";
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
  /** Stop the status line (leave the terminal clean) before anything else is printed. */
  stop(): void;
}

export interface ProgressOptions {
  /** Draw a status line. Default: whether the stream is a TTY. */
  tty?: boolean;
  /** The clock. Default: Date.now. */
  now?: () => number;
  /** Redraw the status line this often on a terminal, in ms (0: only on events). Default: 1000. */
  refreshMs?: number;
}

/**
 * What the bench has done and is doing, and the ETA: the mean wall time of the runs finished in this session
 * (runs resumed from an earlier session and model loading are not counted) times the runs left, less the time
 * the current run has already taken. Null before any run has finished.
 */
export class ProgressState {
  planned = 0;
  done = 0;
  activity = "starting";
  private readonly started: number;
  private readonly durations: number[] = [];
  private runStarted: number | null = null;

  constructor(private readonly now: () => number) {
    this.started = now();
  }

  onEvent(e: BenchEvent): void {
    if (e.type === "start") [this.planned, this.done] = [e.planned, e.done];
    else if (e.type === "loading") this.activity = `loading ${e.model}${e.mode === "reference" ? " (reference)" : ""}…`;
    else if (e.type === "running") {
      this.runStarted = this.now();
      this.activity = `running ${e.mode} ${e.task} seed ${e.seed}`;
    } else if (e.type === "run") {
      this.durations.push(this.runStarted === null ? e.record.timings.totalMs : this.now() - this.runStarted);
      [this.runStarted, this.done, this.planned] = [null, e.done, e.planned];
      this.activity = "finishing";
    } else if (e.type === "stopping") this.activity = "stopping after the current run (Ctrl-C again to quit at once)";
  }

  elapsedMs(): number {
    return this.now() - this.started;
  }

  etaMs(): number | null {
    if (this.durations.length === 0) return null;
    const mean = this.durations.reduce((a, b) => a + b, 0) / this.durations.length;
    const current = this.runStarted === null ? 0 : Math.min(mean, this.now() - this.runStarted);
    return Math.max(0, mean * (this.planned - this.done) - current);
  }

  /** `3/80 runs · 2m10s · ETA 41m07s · running constrained add-task seed 0`. */
  status(): string {
    const eta = this.etaMs();
    const etaText = eta === null ? "ETA after the first run" : `ETA ${duration(eta)}`;
    return `bench ${this.done}/${this.planned} runs · ${duration(this.elapsedMs())} · ${etaText} · ${this.activity}`;
  }
}

/** A reporter writing to `stream`: a status line when it is a TTY (and `tty` is not false), plain lines otherwise. */
export function createProgress(stream: NodeJS.WriteStream = process.stderr, opts: ProgressOptions = {}): ProgressReporter {
  const state = new ProgressState(opts.now ?? Date.now);
  return (opts.tty ?? stream.isTTY === true) ? terminalReporter(stream, state, opts.refreshMs ?? 1000) : lineReporter(stream, state);
}

function lineReporter(stream: NodeJS.WriteStream, state: ProgressState): ProgressReporter {
  return {
    onEvent(e) {
      state.onEvent(e);
      if (e.type === "start") stream.write(`qtc bench: ${e.planned} runs${e.done ? ` (${e.done} already done)` : ""} → ${e.dir}\n`);
      else if (e.type === "loading") stream.write(`qtc bench: ${state.activity}\n`);
      else if (e.type === "loaded") stream.write(`qtc bench: ${e.model} loaded in ${duration(e.ms)}\n`);
      else if (e.type === "run") {
        const eta = state.etaMs();
        stream.write(`[${e.done}/${e.planned}] ${describeRun(e.record)}${eta !== null && e.done < e.planned ? ` · ETA ${duration(eta)}` : ""}\n`);
      } else if (e.type === "stopping") stream.write(`qtc bench: ${state.activity}\n`);
    },
    stop() {},
  };
}

const CLEAR_LINE = "\r\x1b[2K";

function terminalReporter(stream: NodeJS.WriteStream, state: ProgressState, refreshMs: number): ProgressReporter {
  let shown = false;
  let timer: NodeJS.Timeout | null = null;
  const columns = (): number => (stream.columns > 0 ? stream.columns : 80);
  // One column short of the edge: a line that fills the last column leaves some terminals in a pending wrap.
  const draw = (): void => {
    stream.write(`${CLEAR_LINE}${truncate(state.status(), columns() - 1)}`);
    shown = true;
  };
  const print = (text: string): void => {
    stream.write(`${shown ? CLEAR_LINE : ""}${wrap(text, columns(), "  ").join("\n")}\n`);
    shown = false;
  };
  return {
    onEvent(e) {
      state.onEvent(e);
      if (e.type === "start") {
        print(`qtc bench: ${e.planned} runs${e.done ? ` (${e.done} already done)` : ""} → ${e.dir}`);
        if (refreshMs > 0 && timer === null) (timer = setInterval(draw, refreshMs)).unref();
      } else if (e.type === "loaded") print(`qtc bench: ${e.model} loaded in ${duration(e.ms)}`);
      else if (e.type === "run") print(`[${e.done}/${e.planned}] ${describeRun(e.record)}`);
      draw();
    },
    stop() {
      if (timer !== null) clearInterval(timer);
      timer = null;
      if (shown) stream.write(CLEAR_LINE);
      shown = false;
    },
  };
}
