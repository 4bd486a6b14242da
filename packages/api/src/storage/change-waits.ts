import {
  type Job,
  JobPhase,
  type TeamEvent,
  TeamEventKind,
  TeamStatus,
  WAKE_CHANGES_MAX,
  wakesWaiter,
} from '@agent-teams/core';
import type { Kysely } from 'kysely';
import type { Database } from './database-types.js';
import { UNFINISHED } from './job-reads.js';
import { literalLimit } from './literal-limit.js';
import { literalPhase } from './literal-phase.js';
import { toEvent } from './row-mappers.js';

/**
 * The durable waits in SQL (decision 0165): which WAITING_CHANGE jobs a change or their deadline
 * woke, what woke them, and the next deadline. A wait is data on its job row (`wait_json`,
 * `wait_after_seq`, `wait_deadline`), so it survives restarts and every server sees it.
 */

/**
 * The WAITING_CHANGE jobs of READY teams whose wait ended: the deadline passed, or the team has
 * an event after the wait's seq that is not the job's own parking (`wakesWaiter`, as SQL). Few
 * rows: only waiting jobs are read, each with one EXISTS on the event log's primary key.
 */
export function wokenJobs(db: Kysely<Database>, now: string) {
  return db
    .selectFrom('jobs as j')
    .innerJoin('teams as t', 't.id', 'j.team_id')
    .select(['j.id', 'j.owner', 'j.team_id', 'j.conversation_id', 'j.seq'])
    .where('j.unfinished', '=', UNFINISHED)
    .where('j.phase', '=', literalPhase(JobPhase.WAITING_CHANGE))
    .where('t.status', '=', TeamStatus.READY)
    .where((eb) =>
      eb.or([
        eb('j.wait_deadline', '<=', now),
        eb.exists(
          eb
            .selectFrom('team_events as e')
            .select('e.seq')
            .whereRef('e.team_id', '=', 'j.team_id')
            .whereRef('e.seq', '>', 'j.wait_after_seq')
            .where((inner) => inner.or([inner('e.job_id', 'is', null), inner('e.job_id', '<>', inner.ref('j.id'))]))
            .where((inner) =>
              inner.or([
                inner('e.kind', '<>', TeamEventKind.MEMBER_CHANGED),
                inner('e.member_id', 'is', null),
                inner('e.member_id', '<>', inner.ref('j.member_id')),
              ]),
            ),
        ),
      ]),
    );
}

/** The events that wake a waiting job (`wakesWaiter`), oldest first, one more than a result lists. */
export async function readChanges(db: Kysely<Database>, job: Job): Promise<TeamEvent[]> {
  const { wait } = job;
  if (wait == null) return [];
  const rows = await db
    .selectFrom('team_events')
    .selectAll()
    .where('team_id', '=', job.teamId)
    .where('seq', '>', wait.afterSeq)
    .orderBy('seq')
    // Its own parking events are few (two per wait): read a little more than the list, then filter.
    // A literal, so the read is not re-planned at every run (`literal-limit.ts`).
    .limit(literalLimit(WAKE_CHANGES_MAX + 8))
    .execute();
  const waiter = { id: job.id, memberId: job.memberId, wait };
  return (
    rows
      // Not a literal that begins with a spread (see `UNADMITTED` in the core): one per row.
      .map((row) => toEvent(Object.assign({}, row, { owner: job.owner })))
      .filter((event) => wakesWaiter(event, waiter))
      .slice(0, WAKE_CHANGES_MAX + 1)
  );
}

/** The earliest deadline of a waiting job (see `Admission.nextWaitDeadline`). */
export async function nextWaitDeadline(db: Kysely<Database>): Promise<string | null> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.min('wait_deadline').as('next'))
    .where('unfinished', '=', UNFINISHED)
    .where('phase', '=', literalPhase(JobPhase.WAITING_CHANGE))
    .executeTakeFirst();
  return (row?.next as string | null | undefined) ?? null;
}
