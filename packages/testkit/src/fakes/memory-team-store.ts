import type { EventSink, IdGenerator, TeamStore } from '@agent-teams/core';
import { memoryAdmission } from './memory-store/admission.js';
import { memoryBudgets } from './memory-store/budgets.js';
import { memoryJobReads } from './memory-store/job-reads.js';
import { memoryJobWrites } from './memory-store/job-writes.js';
import { memoryLeases } from './memory-store/leases.js';
import { memoryMailbox } from './memory-store/mailbox.js';
import { memoryConversationLog, memoryRecordReads } from './memory-store/record-reads.js';
import { MemoryStoreState } from './memory-store/state.js';
import { memoryTasks } from './memory-store/tasks.js';
import { memoryTeamLifecycle } from './memory-store/team-lifecycle.js';
import { memoryTeamReads, memoryTeamWrites } from './memory-store/team-writes.js';
import { memoryUsageLedger } from './memory-store/usage.js';
import { SequentialIds } from './sequential-ids.js';

/** Options of {@link createMemoryTeamStore}. */
export interface MemoryTeamStoreOptions {
  /** Mints the ids of record messages the store appends; share the core's so ids never collide. */
  readonly ids?: IdGenerator;
  /** Told about committed events. */
  readonly events?: EventSink;
}

/** The in-memory store: every role of {@link TeamStore}, and whether it was closed. */
export interface MemoryTeamStore extends TeamStore {
  /** True once `close()` was called (a test can check the composition root released it). */
  readonly closed: boolean;
}

/**
 * The in-memory reference implementation of {@link TeamStore}, one object per role over one
 * state (`memory-store/`): faithful to the port's TSDoc, so the store contract suites run
 * against it and core tests need no database.
 *
 * @remarks Every method does all its reads and writes synchronously, so each is atomic. Events are
 * reported to the sink only after the whole write is applied ("after commit").
 */
export function createMemoryTeamStore(options: MemoryTeamStoreOptions = {}): MemoryTeamStore {
  const state = new MemoryStoreState(options.ids ?? new SequentialIds(), options.events);
  let closed = false;
  return {
    ...memoryTeamWrites(state),
    ...memoryTeamReads(state),
    ...memoryJobWrites(state),
    ...memoryJobReads(state),
    ...memoryAdmission(state),
    ...memoryLeases(state),
    ...memoryRecordReads(state),
    ...memoryUsageLedger(state),
    ...memoryConversationLog(state),
    ...memoryMailbox(state),
    ...memoryTasks(state),
    ...memoryTeamLifecycle(state),
    ...memoryBudgets(state),
    async close() {
      closed = true;
    },
    get closed() {
      return closed;
    },
  };
}
