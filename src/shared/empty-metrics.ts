/** Metrics before anything has run. Its own module, free of zod, so the dashboard's first paint can import it. */
import type { Metrics } from "./command-center";

export const EMPTY_METRICS: Metrics = {
  runs24h: 0,
  successRate: null,
  durationP50Ms: null,
  durationP95Ms: null,
  firstToolP50Ms: null,
  firstToolP95Ms: null,
  toolErrorRate: null,
  recovering: 0,
  recoveries24h: 0,
  spendToday: { usd: 0, complete: true },
  spend7d: { usd: 0, complete: true },
  spendByRepo: [],
  costliestRuns: []
};
