// Owns: two behaviour probes for server tests: the slowest `/health` answer while some work runs (polled every
// 50 ms), and the peak RSS of this process over a stretch (sampled every 10 ms).

/** Polls `${url}/health` until stop(); stop() gives the slowest answer in ms (throws on a non-200). */
export function healthPoller(url: string): { stop: () => Promise<number> } {
  let slowest = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      const res = await fetch(`${url}/health`);
      await res.text();
      if (res.status !== 200) throw new Error(`/health answered ${res.status}`);
      slowest = Math.max(slowest, performance.now() - t0);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return slowest;
    },
  };
}

/** Samples this process's RSS until stop(); stop() gives the peak growth over the RSS at the start, in bytes. */
export function rssPeak(): { stop: () => number } {
  const start = process.memoryUsage.rss();
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
  return {
    stop: () => {
      clearInterval(timer);
      peak = Math.max(peak, process.memoryUsage.rss());
      return peak - start;
    },
  };
}
