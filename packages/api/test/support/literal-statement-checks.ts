// The checks of decision 0231's literals on the statements the store's contract cases ran, apart
// from the file that runs the cases (`no-history-scans.test.ts`) so the cases run once per engine
// for both its plan checks and these. They read what was recorded: they must be declared after the
// cases, and the file run whole (a `-t` filter that skips the cases fails them).
import { JobKind, type StoreRole, WAKE_CHANGES_MAX } from '@agent-teams/core';
import { CompiledQuery, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/storage/database-types.js';
import { JOB_VIEW_COLUMNS } from '../../src/storage/job-view-rows.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openDatabase } from '../../src/storage/open-database.js';
import type { StatementRecorder } from './statement-recorder.js';

/**
 * The roles whose cases run every statement made literal (and the page reads left bound): only
 * their statements are recorded for {@link describeLiteralStatementChecks}, since another role's
 * may bind what these checks forbid.
 */
export const LITERAL_ROLES: readonly StoreRole[] = [
  'teamWrites',
  'jobWrites',
  'jobReads',
  'admission',
  'recordReads',
  'eventLog',
  'mailbox',
  // Their cases run the lease claims and a team's closing and a member's retirement, which compare phases too.
  'leases',
  'teamLifecycle',
];

/** How a page of jobs begins (`job-reads.ts`): every column but the frozen input (decision 0246). */
const JOB_PAGE = `select ${JOB_VIEW_COLUMNS.map((column) => `"${column}"`).join(', ')} from "jobs"`;

/** The page reads whose limit stays bound: a caller's page size (see each site's comment). */
const BOUND_PAGE_READS = [
  // `listJobs` and the inbox (job-reads.ts): a page of 1–100.
  new RegExp(`^${JOB_PAGE} where "(team_id|owner)" = \\? .*order by "seq" limit \\?$`),
  // The member tools' record and request search (member-tool-reads.ts): a page of 1–20.
  /^select \* from "(jobs|record_messages)" where "team_id" = \? .*order by "seq" desc limit \?$/,
  // Teams, team messages, a conversation, tasks: pages of 1–100.
  /^select \* from "(teams|team_messages|conversation_messages|tasks)" where .* limit \?$/,
];

/**
 * Declares the checks of the texts each engine's recorder holds (kinds, phases and limits written
 * as literals), and that on SQLite each such statement keeps the plan of its bound form, planned
 * on a migrated database made at `plansPath`.
 */
export function describeLiteralStatementChecks(
  recorders: { readonly sqlite: StatementRecorder; readonly postgres: StatementRecorder },
  plansPath: string,
): void {
  describe.each([
    ['SQLite', recorders.sqlite],
    ['PostgreSQL', recorders.postgres],
  ])('%s: the texts of the statements made literal', (_engine, recorder) => describeTextChecks(recorder));
  describeBoundFormPlans(recorders.sqlite, plansPath);
}

function describeTextChecks(recorder: StatementRecorder): void {
  it.each(Object.values(JobKind))('listJobs writes the kind %s into its count and its page', (kind) => {
    const count = recorder.startingWith(
      `select count(*) as "n" from "jobs" where "team_id" = ? and "kind" = '${kind}'`,
    );
    // Its page, oldest first, its size still bound (a caller's choice, 1–100); the count's text
    // for REQUEST alone is also the request count of a send (`enqueue-snapshot.ts`).
    const page = recorder
      .startingWith(`${JOB_PAGE} where "team_id" = ? and "kind" = '${kind}'`)
      .filter((statement) => / order by "seq" limit \?$/.test(statement.text));
    expect(page).not.toEqual([]);
    for (const statement of [...count, ...page]) expect(statement.parameters).not.toContain(kind);
  });

  it("a broadcast's requests and the member tools' request search write the kind", () => {
    const [broadcast] = recorder.startingWith(
      `select * from "jobs" where "team_id" = ? and "requester_key" = ? and "client_key" = ? and "kind" = 'REQUEST'`,
    );
    expect(broadcast?.parameters).toHaveLength(3);
    expect(broadcast?.parameters).not.toContain(JobKind.REQUEST);
    // The member tools' search, newest first (listJobs with the kind and a status reads oldest first).
    const search = recorder
      .startingWith(`select * from "jobs" where "team_id" = ? and "kind" = 'REQUEST' and "phase" in (`)
      .filter((statement) => statement.text.includes(' order by "seq" desc '));
    expect(search).not.toEqual([]);
    for (const statement of search) {
      expect(statement.parameters).not.toContain(JobKind.REQUEST);
      expect(statement.text).toMatch(/order by "seq" desc limit \?$/);
    }
  });

  it('the event reads, the wake read and the pending-work check write their limits', () => {
    const events = recorder.startingWith(`select "team_events".*, "teams"."owner" from "team_events"`);
    const limits = new Set<number>();
    for (const statement of events) {
      const limit = /order by "team_events"\."seq" limit (\d+)$/.exec(statement.text)?.[1];
      expect(limit, statement.text).toBeDefined();
      limits.add(Number(limit));
      expect(statement.parameters).toHaveLength(2);
    }
    // More than one limit, each its own text, each answered right by the contract.
    expect(limits.size).toBeGreaterThan(1);
    const wake = recorder.startingWith(`select * from "team_events" where "team_id" = ? and "seq" > ? order by "seq"`);
    for (const statement of wake) {
      expect(statement.text).toMatch(new RegExp(` limit ${WAKE_CHANGES_MAX + 8}$`));
      expect(statement.parameters).toHaveLength(2);
    }
    const [pending] = recorder.startingWith(`select "id" from "jobs" where "team_id" = ? and "unfinished" = 1`);
    expect(pending?.text).toMatch(/ limit 1$/);
    expect(pending?.parameters).toHaveLength(1);
  });

  it('no statement binds a kind for equality or a phase at all, and only the page reads bind a top-level limit', () => {
    expect(recorder.texts.length).toBeGreaterThan(100);
    let comparesPhase = 0;
    for (const { text } of recorder.texts) {
      expect(text).not.toMatch(/"kind" = \?/);
      // Where a statement compares the phase (an update's SET binds it, and may): a literal, so
      // the partial index of the inbox never makes it re-plan (decision 0235). A list of two or
      // more bound phases (a caller's statuses in `listJobs`) is not compared with that index.
      const where = text.slice(Math.max(0, text.indexOf(' where ')));
      expect(where, text).not.toMatch(/"phase" (=|<>|!=) \?|"phase" (not )?in \(\?\)/);
      if (/"phase" (=|in|not in) \(?'/.test(where)) comparesPhase += 1;
      // A subquery's `limit ?` ends in `)`: SQLite turns it into `? <> 0`, never planned on.
      if (/ limit \?( offset \?)?$/.test(text)) {
        expect(
          BOUND_PAGE_READS.some((read) => read.test(text)),
          text,
        ).toBe(true);
      }
    }
    expect(comparesPhase).toBeGreaterThan(5);
  });
}

/** What SQLite reads for `text` bound with `parameters`. */
async function plan(db: Kysely<Database>, text: string, parameters: readonly unknown[]): Promise<string> {
  const rows = await db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(`explain query plan ${text}`, [...parameters]),
  );
  return rows.rows.map((row) => row.detail).join(' | ');
}

/** The statement as it was before decision 0231's literals: its kind and limit bound again. */
function boundForm(text: string, parameters: readonly unknown[]): [string, unknown[]] {
  let bound = text;
  const values = [...parameters];
  const kind = /'(REQUEST|RECEIPT|MESSAGE|BROADCAST_RECEIPT)'/.exec(bound);
  if (kind !== null) {
    const before = bound.slice(0, kind.index).split('?').length - 1;
    values.splice(before, 0, kind[1]);
    bound = `${bound.slice(0, kind.index)}?${bound.slice(kind.index + kind[0].length)}`;
  }
  const limit = / limit (\d+)$/.exec(bound);
  if (limit !== null) {
    bound = `${bound.slice(0, limit.index)} limit ?`;
    values.push(Number(limit[1]));
  }
  return [bound, values];
}

function describeBoundFormPlans(sqliteRecorder: StatementRecorder, plansPath: string): void {
  describe('SQLite: each statement made literal keeps the plan of its bound form', () => {
    it('the counts and pages by kind, the broadcast read, the search, the event reads and the pending check', async () => {
      const opened = await openDatabase(plansPath);
      try {
        await migrateToLatest(opened.db, opened.dialect);
        const expected: [string, RegExp][] = [
          [
            `select count(*) as "n" from "jobs" where "team_id" = ? and "kind" = '`,
            /INDEX jobs_team_kind_root_idx \(team_id=\? AND kind=\?\)/,
          ],
          [
            `select * from "jobs" where "team_id" = ? and "kind" = '`,
            /INDEX jobs_team_seq_idx \(team_id=\?( AND seq<\?)?\)/,
          ],
          [`${JOB_PAGE} where "team_id" = ? and "kind" = '`, /INDEX jobs_team_seq_idx \(team_id=\?( AND seq<\?)?\)/],
          [`select * from "jobs" where "team_id" = ? and "requester_key" = ?`, /INDEX jobs_idempotency_key/],
          // An enqueue's snapshot (`enqueue-snapshot.ts`): its counts by the request index, its stored
          // jobs by the key's, and no other access to `jobs` (a team's jobs by seq, say).
          [
            `select "c"."n" as "snapshot__n"`,
            /^(?!.*SEARCH jobs USING (?!INDEX jobs_idempotency_key|COVERING INDEX jobs_team_kind_root_idx)).*COVERING INDEX jobs_team_kind_root_idx \(team_id=\? AND kind=\?\)/,
          ],
          [`select "id" from "jobs" where "team_id" = ? and "unfinished" = 1`, /INDEX jobs_team_\w+ \(team_id=\?\)/],
          [`select "team_events".*`, /INDEX sqlite_autoindex_team_events_1 \(team_id=\? AND seq>\?\)/],
          [`select * from "team_events" where "team_id" = ?`, /INDEX sqlite_autoindex_team_events_1/],
        ];
        for (const [prefix, index] of expected) {
          for (const statement of sqliteRecorder.startingWith(prefix)) {
            const detail = await plan(opened.db, statement.sql, statement.parameters);
            expect(detail, statement.text).toMatch(index);
            // A literal 'RECEIPT' makes the partial index of receipts usable: it must not be taken.
            expect(detail, statement.text).not.toMatch(/jobs_one_receipt_per_request|SCAN jobs/);
            const [bound, values] = boundForm(statement.sql, statement.parameters);
            expect(bound, statement.text).not.toBe(statement.sql);
            expect(await plan(opened.db, bound, values), statement.text).toBe(detail);
          }
        }
      } finally {
        await opened.close();
      }
    });
  });
}
