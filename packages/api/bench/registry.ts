import { admissionPlanner } from './admission-planner.js';
import { clusterDispatch } from './cluster-dispatch.js';
import { clusterEvents } from './cluster-events.js';
import { coldStart } from './cold-start.js';
import { dispatchLatency } from './dispatch-latency.js';
import { engineFloor } from './engine-floor.js';
import { engineThroughput } from './engine-throughput.js';
import { graphqlThroughput } from './graphql-throughput.js';
import type { Benchmark } from './harness/benchmark.js';
import { historyRead } from './history-read.js';
import { interopOverhead } from './interop-overhead.js';
import { jobPages } from './job-pages.js';
import { leaseClaims } from './lease-claims.js';
import { liveFanout } from './live-fanout.js';
import { logFrames } from './log-frames.js';
import { memberStatus } from './member-status.js';
import { memberTools } from './member-tools.js';
import { messageLatency } from './message-latency.js';
import { ownerIsolation } from './owner-isolation.js';
import { planningPass } from './planning-pass.js';
import { postgresEngine } from './postgres-engine.js';
import { postgresRoundTrips } from './postgres-round-trips.js';
import { taskClaims } from './task-claims.js';
import { tokenRelay } from './token-relay.js';
import { turnOverhead } from './turn-overhead.js';
import { waitLatency } from './wait-latency.js';

/**
 * Every benchmark `pnpm bench` runs, in document order. A new benchmark adds its module here; its
 * name is the marker of its section in docs/benchmarks.md.
 */
export const BENCHMARKS: readonly Benchmark[] = [
  dispatchLatency,
  engineThroughput,
  engineFloor,
  logFrames,
  planningPass,
  admissionPlanner,
  liveFanout,
  memberTools,
  clusterDispatch,
  postgresEngine,
  postgresRoundTrips,
  clusterEvents,
  leaseClaims,
  interopOverhead,
  ownerIsolation,
  messageLatency,
  waitLatency,
  taskClaims,
  coldStart,
  graphqlThroughput,
  turnOverhead,
  historyRead,
  jobPages,
  memberStatus,
  tokenRelay,
];
