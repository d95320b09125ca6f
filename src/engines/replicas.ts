// Owns: a replica set: one Runtime over several upstream runtimes (the same model served N times). Each request
// goes to the least busy healthy replica; a replica that fails is taken out and health-checked back in; a request
// whose replica failed before anything streamed is retried on another one. Nothing here knows which engine runs.

import { QtcException } from "../errors.js";
import type { GenerateOutput } from "../runtime/result.js";
import { resultOfStream } from "../runtime/turn-request.js";
import type { ModelInfo, Runtime, RuntimeLoad } from "../runtime/runtime.js";
import type { GenerateEvent, GenerateRequest } from "../runtime/types.js";
import { isUpstreamFailure, upstreamFailure } from "./upstream-http.js";

/** A runtime over one upstream, with a health check. */
export interface UpstreamRuntime extends Runtime {
  /** True when the upstream answers its health check within `timeoutMs`. */
  healthy(timeoutMs: number): Promise<boolean>;
}

export interface ReplicaOptions {
  /** How often every replica is health-checked (out ones to bring them back, in ones to take dead ones out). Default: 2000 ms. */
  healthIntervalMs?: number;
  /** Time a health check may take. Default: 2000 ms. */
  healthTimeoutMs?: number;
}

export const REPLICA_DEFAULTS = Object.freeze({
  /** Default: 2000 ms. */
  healthIntervalMs: 2000,
  /** Default: 2000 ms. */
  healthTimeoutMs: 2000,
});

interface Replica {
  url: string;
  runtime: UpstreamRuntime | undefined;
  /** In rotation. */
  healthy: boolean;
  /** Requests it serves now. */
  inFlight: number;
  /** A health check or connection attempt is running. */
  checking: boolean;
}

/**
 * Connect to every upstream (in parallel) and return one Runtime over them. Replicas that cannot be reached now
 * start out of rotation and are brought in by the health check; at least one must answer (else
 * `upstream_unavailable`).
 */
export async function createReplicaRuntime(
  name: string,
  urls: readonly string[],
  connect: (url: string) => Promise<UpstreamRuntime>,
  options: ReplicaOptions = {},
): Promise<Runtime> {
  const connected = await Promise.allSettled(urls.map((url) => connect(url)));
  const replicas: Replica[] = urls.map((url, i) => {
    const c = connected[i]!;
    return { url, runtime: c.status === "fulfilled" ? c.value : undefined, healthy: c.status === "fulfilled", inFlight: 0, checking: false };
  });
  const first = replicas.find((r) => r.runtime);
  if (!first) {
    const reasons = connected.map((c) => (c.status === "rejected" ? (c.reason instanceof Error ? c.reason.message : String(c.reason)) : "")).join("; ");
    // A refusal of the caller's making (a bad URL, a model qtc cannot use) is reported as it is.
    const firstError = (connected[0] as PromiseRejectedResult).reason;
    if (firstError instanceof QtcException && !isUpstreamFailure(firstError)) throw firstError;
    throw upstreamFailure("upstream_unavailable", `no upstream answered: ${reasons}`);
  }
  return new ReplicaSet(name, replicas, connect, first.runtime!, { ...REPLICA_DEFAULTS, ...options });
}

class ReplicaSet implements Runtime {
  readonly format: Runtime["format"];
  readonly modelInfo: ModelInfo;
  readonly settings: Runtime["settings"];
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(
    name: string,
    private readonly replicas: Replica[],
    private readonly connect: (url: string) => Promise<UpstreamRuntime>,
    first: UpstreamRuntime,
    private readonly options: Required<ReplicaOptions>,
  ) {
    this.format = first.format;
    this.modelInfo = { ...first.modelInfo, name };
    this.settings = { ...first.settings, sequences: first.settings.sequences * replicas.length };
    this.timer = setInterval(() => void this.checkAll(), options.healthIntervalMs);
    this.timer.unref();
  }

  get load(): RuntimeLoad {
    const busy = this.replicas.reduce((n, r) => n + r.inFlight, 0);
    const sequences = this.replicas.filter((r) => r.healthy).reduce((n, r) => n + (r.runtime?.settings.sequences ?? 0), 0);
    return { sequences, busy: Math.min(busy, sequences), waiting: Math.max(0, busy - sequences) };
  }

  /** The replicas' state, for logs and tests. */
  get members(): { url: string; healthy: boolean; inFlight: number }[] {
    return this.replicas.map((r) => ({ url: r.url, healthy: r.healthy, inFlight: r.inFlight }));
  }

  generate(request: GenerateRequest): Promise<GenerateOutput> {
    return resultOfStream(this.stream(request));
  }

  async *stream(request: GenerateRequest): AsyncGenerator<GenerateEvent, void, void> {
    if (this.closed) throw new QtcException({ code: "invalid_option", message: "the runtime is closed" });
    const tried = new Set<Replica>();
    for (;;) {
      const replica = this.pick(tried);
      if (!replica) throw upstreamFailure("upstream_unavailable", `no upstream answered this request (${tried.size} tried of ${this.replicas.length} configured); the server health-checks them every ${this.options.healthIntervalMs} ms`);
      tried.add(replica);
      let streamed = false;
      replica.inFlight++;
      try {
        for await (const event of replica.runtime!.stream(request)) {
          streamed = true;
          yield event;
        }
        replica.healthy = true;
        return;
      } catch (e) {
        if (!isUpstreamFailure(e)) throw e;
        this.takeOut(replica);
        // Nothing reached the caller yet: the request is as good as new on another replica, unless its time ran
        // out (a deadline or a silence limit): another try would give it a second deadline (issue 52, row 15).
        if (streamed || request.signal?.aborted || e.code === "upstream_timeout") throw e;
      } finally {
        replica.inFlight--;
      }
    }
  }

  /**
   * The least busy healthy replica not tried yet (the first of equals, so load spreads in order). When none is in
   * rotation, one taken out but not tried for this request: a health check that timed out on a busy machine
   * says less than this request's own try, and a 503 for a replica that would have answered loses the request.
   */
  private pick(tried: ReadonlySet<Replica>): Replica | undefined {
    return this.leastBusy(tried, true) ?? this.leastBusy(tried, false);
  }

  private leastBusy(tried: ReadonlySet<Replica>, healthyOnly: boolean): Replica | undefined {
    let best: Replica | undefined;
    for (const r of this.replicas) {
      if ((healthyOnly && !r.healthy) || !r.runtime || tried.has(r)) continue;
      if (!best || r.inFlight < best.inFlight) best = r;
    }
    return best;
  }

  private takeOut(replica: Replica): void {
    replica.healthy = false;
  }

  /** One round of health checks: connect to replicas never reached, probe the others. */
  private async checkAll(): Promise<void> {
    await Promise.all(this.replicas.map((r) => this.check(r)));
  }

  private async check(replica: Replica): Promise<void> {
    if (replica.checking || this.closed) return;
    replica.checking = true;
    try {
      if (!replica.runtime) replica.runtime = await this.connect(replica.url).catch(() => undefined);
      replica.healthy = replica.runtime !== undefined && (await replica.runtime.healthy(this.options.healthTimeoutMs));
    } finally {
      replica.checking = false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await Promise.all(this.replicas.map((r) => r.runtime?.close()));
  }
}
