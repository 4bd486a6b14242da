import { isDeepStrictEqual } from 'node:util';
import {
  asMemberId,
  asOwnerId,
  asTeamId,
  type CommittedRows,
  type EventSink,
  JobPhase,
  type Member,
  type MemberId,
  type Team,
  type TeamEvent,
  TeamEventKind,
  type TeamId,
} from '@agent-teams/core';
import BetterSqlite3 from 'better-sqlite3';
import type { Selectable } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { KNOWN_MEMBERS_MAX, KnownMembers } from '../../src/events/known-members.js';
import { teamEventViewLoader } from '../../src/schema/team-events.js';
import type { MembersTable } from '../../src/storage/database-types.js';
import { toMember } from '../../src/storage/row-mappers.js';
import { closeHarnesses, OWNER, openHarness, removeTempDirs, waitForPhases } from '../scheduler/scheduler-harness.js';

afterAll(async () => {
  await closeHarnesses();
  removeTempDirs();
});

const TEAM = asTeamId('team_known');

function event(kind: TeamEventKind, memberId: MemberId | null, teamId: TeamId = TEAM): TeamEvent {
  return {
    teamId,
    owner: asOwnerId('alice'),
    seq: 1,
    kind,
    jobId: null,
    recordId: null,
    memberId,
    createdAt: '2026-12-05T00:00:00.000Z',
  };
}

/** A member with only what `KnownMembers` looks at filled in (its id), and a retirement. */
function member(id: string, retiredAt: string | null = null, teamId: TeamId = TEAM): Member {
  return { id: asMemberId(id), teamId, retiredAt } as unknown as Member;
}

function rows(...members: Member[]): CommittedRows {
  return { jobs: new Map(), records: new Map(), teams: new Map(), members: new Map(members.map((m) => [m.id, m])) };
}

/** The rows of a commit that logged a change of `teamId`'s row (a close, a rename): it notes the team. */
function teamRows(teamId: TeamId): CommittedRows {
  return { ...rows(), teams: new Map([[teamId, { id: teamId } as unknown as Team]]) };
}

describe('KnownMembers', () => {
  it('keeps every member a commit noted, the last note winning', () => {
    const known = new KnownMembers();
    const [a, b] = [member('a'), member('b')];
    known.published([event(TeamEventKind.JOB_CHANGED, null)], rows(a, b));
    expect([known.get(a.id), known.get(b.id)]).toEqual([a, b]);
    const retired = member('a', '2026-12-05T01:00:00.000Z');
    known.published([event(TeamEventKind.MEMBER_RETIRED, a.id)], rows(retired));
    expect(known.get(a.id)).toBe(retired);
  });

  it('drops a member a spawn or retirement names without noting it; other events keep it', () => {
    const known = new KnownMembers();
    const [a, b, c] = [member('a'), member('b'), member('c')];
    known.published([], rows(a, b, c));
    known.published([event(TeamEventKind.MEMBER_RETIRED, a.id)], rows());
    known.published([event(TeamEventKind.MEMBER_SPAWNED, b.id)], undefined);
    // A MEMBER_CHANGED goes with no write of the member's row (its derived status may follow a job).
    known.published([event(TeamEventKind.MEMBER_CHANGED, c.id)], undefined);
    expect([known.get(a.id), known.get(b.id), known.get(c.id)]).toEqual([undefined, undefined, c]);
  });

  it("forgets a deleted team's members, deleted here or on another server; a logged team change keeps them", () => {
    const known = new KnownMembers();
    const [other, third] = [asTeamId('team_other'), asTeamId('team_third')];
    const [a, b, c] = [member('a'), member('b', null, other), member('c', null, third)];
    known.published([], rows(a, b, c));
    // A close of the team logs its TEAM_CHANGED and notes its row: its members stay as noted.
    known.published([event(TeamEventKind.TEAM_CHANGED, null)], teamRows(TEAM));
    expect(known.get(a.id)).toBe(a);
    // This server's deletion: a TEAM_CHANGED announced, the team's row gone with its log.
    known.published([event(TeamEventKind.TEAM_CHANGED, null)], rows());
    expect([known.get(a.id), known.get(b.id), known.get(c.id)]).toEqual([undefined, b, c]);
    // Another server's deletion: its tombstone heard as a TEAM_CHANGED without rows.
    known.published([event(TeamEventKind.TEAM_CHANGED, null, other)], undefined);
    expect([known.get(b.id), known.get(c.id)]).toEqual([undefined, c]);
    expect(known.size).toBe(1);
  });

  it.each([
    [KNOWN_MEMBERS_MAX - 1, KNOWN_MEMBERS_MAX - 1, true],
    [KNOWN_MEMBERS_MAX, KNOWN_MEMBERS_MAX, true],
    [KNOWN_MEMBERS_MAX + 1, KNOWN_MEMBERS_MAX, false],
  ])('noting %i members keeps %i, the first kept: %s', (count, kept, firstKept) => {
    const known = new KnownMembers();
    known.published([], rows(...Array.from({ length: count }, (_, i) => member(`m${i}`))));
    expect(known.size).toBe(kept);
    expect(known.get(asMemberId('m0')) !== undefined).toBe(firstKept);
    expect(known.get(asMemberId(`m${count - 1}`))).toBeDefined();
  });
});

/**
 * A second `KnownMembers` fed by the same local commits as the application's, each note compared
 * with the row the database holds after every commit; a difference is a suspect until a later
 * publication names that member (a batch's writes share one COMMIT and publish one by one).
 */
function mirrored(file: () => string | null) {
  const known = new KnownMembers();
  const seen = new Set<MemberId>();
  const suspects = new Map<MemberId, { known: string | null; stored: string | null }>();
  let checked = 0;
  let retiredChecked = 0;
  let read: ((id: MemberId) => Selectable<MembersTable> | undefined) | null = null;
  let reader: BetterSqlite3.Database | null = null;
  const check = (): void => {
    const path = file();
    if (path === null) return;
    if (read === null) {
      reader = new BetterSqlite3(path, { readonly: true });
      const statement = reader.prepare('select * from members where id = ?');
      read = (id) => statement.get(id) as Selectable<MembersTable> | undefined;
    }
    for (const id of seen) {
      const note = known.get(id);
      if (note === undefined) continue;
      const row = read(id);
      const stored = row === undefined ? null : toMember(row);
      checked += 1;
      if (note.retiredAt !== null) retiredChecked += 1;
      if (!isDeepStrictEqual(stored, note))
        suspects.set(id, { known: note.retiredAt, stored: stored?.retiredAt ?? null });
    }
  };
  const sink: EventSink = {
    published(events, rows) {
      known.published(events, rows);
      for (const id of rows?.members.keys() ?? []) seen.add(id);
      for (const e of events) if (e.memberId !== null) suspects.delete(e.memberId);
      for (const id of rows?.members.keys() ?? []) suspects.delete(id);
      check();
    },
  };
  return {
    sink,
    counts: () => ({ checked, retiredChecked }),
    unexplained() {
      check();
      reader?.close();
      return [...suspects].map(([memberId, s]) => ({ memberId, ...s }));
    },
  };
}

describe('KnownMembers against the database (SQLite)', () => {
  it('holds every member exactly as stored after each commit, through sends, a spawn and a retirement', async () => {
    let file: string | null = null;
    const mirror = mirrored(() => file);
    const h = await openHarness({ events: mirror.sink });
    file = h.file;
    const team = await h.core.teams.create(OWNER, {
      clientRequestId: 'known-members',
      name: 'Known members',
      goal: 'Test',
      members: [
        { name: 'Lead', agentId: 'researcher', lead: true },
        { name: 'Bea', agentId: 'reviewer' },
      ],
    });
    const [lead, bea] = await h.core.teams.members([team.id]);
    if (!lead || !bea) throw new Error('no members');
    const [first] = await h.send(team, [lead, bea], 'hello');
    const spawned = await h.core.lifecycle.spawn(OWNER, {
      teamId: team.id,
      name: 'Cy',
      agentId: 'researcher',
      clientRequestId: 'spawn-cy',
    });
    // A turn still running when its member retires: the retirement cancels it.
    const [running] = await h.send(team, [spawned], '!sleep 600000');
    if (!first || !running) throw new Error('no jobs');
    await waitForPhases(h, [running.id], [JobPhase.RUNNING]);
    await h.core.lifecycle.retire(OWNER, spawned.id);
    const [after] = await h.send(team, [bea], 'after the retirement');
    if (!after) throw new Error('no job');
    await waitForPhases(h, [running.id, after.id], [JobPhase.CANCELLED, JobPhase.COMPLETED]);
    await h.scheduler.idle();

    expect(mirror.unexplained()).toEqual([]);
    expect(mirror.counts().checked).toBeGreaterThan(0);
    expect(mirror.counts().retiredChecked).toBeGreaterThan(0);
    await h.close();
  });

  it('flags a change of a member that no commit told of (the check itself can fail)', async () => {
    let file: string | null = null;
    const mirror = mirrored(() => file);
    const h = await openHarness({ events: mirror.sink });
    file = h.file;
    const { team, members } = await h.team(['researcher', 'reviewer']);
    const [m0, m1] = members;
    if (!m0 || !m1) throw new Error('no members');
    const [turn] = await h.send(team, [m1], '!sleep 200');
    if (!turn) throw new Error('no job');
    await waitForPhases(h, [turn.id], [JobPhase.RUNNING]);
    // Another writer, beside the server: what a server alone on its file rules out (decision 0241).
    const writer = new BetterSqlite3(h.file);
    writer.prepare('update members set retired_at = ? where id = ?').run('2026-01-01T00:00:00.000Z', m0.id);
    writer.close();
    // The turn's completion reads no roster: the mirror compares its note of m0 with the row.
    await waitForPhases(h, [turn.id], [JobPhase.COMPLETED]);
    await h.scheduler.idle();
    expect(mirror.unexplained()).toEqual([{ memberId: m0.id, known: null, stored: '2026-01-01T00:00:00.000Z' }]);
    await h.close();
  });

  it("forgets a deleted team's members once the deletion commits, and only that team's", async () => {
    const known = new KnownMembers();
    const h = await openHarness({ events: known });
    const kept = await h.team(['researcher', 'reviewer']);
    const deleted = await h.team(['researcher', 'reviewer']);
    // Each member is noted by a commit that reads its roster under the team's lock (a send).
    const jobs = [
      ...(await h.send(kept.team, kept.members, 'hi')),
      ...(await h.send(deleted.team, deleted.members, 'hi')),
    ];
    // Deletion waits for a team's jobs to finish (PENDING_WORK otherwise).
    await waitForPhases(
      h,
      jobs.map((job) => job.id),
      [JobPhase.COMPLETED],
    );
    await h.scheduler.idle();
    const noted = (ids: readonly Member[]) => ids.filter((m) => known.get(m.id) !== undefined).length;
    expect([noted(kept.members), noted(deleted.members)]).toEqual([2, 2]);
    await h.core.teams.delete(OWNER, deleted.team.id);
    expect([noted(kept.members), noted(deleted.members)]).toEqual([2, 0]);
    await h.close();
  });

  it('reads the member of an event read back from the log, which may be newer than every note', async () => {
    const h = await openHarness();
    const { team, members } = await h.team(['researcher', 'reviewer']);
    const [, m1] = members;
    if (!m1) throw new Error('no member');
    await h.core.lifecycle.retire(OWNER, m1.id);
    const events = await h.core.events.read(OWNER, team.id, 0, 100);
    const retiredEvent = events.find((e) => e.kind === TeamEventKind.MEMBER_RETIRED && e.memberId === m1.id);
    if (!retiredEvent) throw new Error('no MEMBER_RETIRED');
    // As a note from before the retirement would be while the retirement's commit is not published
    // yet (with group commit, while its log sync runs).
    const known = new KnownMembers();
    known.published([], rows(m1));
    expect(known.get(m1.id)?.retiredAt).toBeNull();
    const load = teamEventViewLoader(h.core, known);
    const fromLog = await load(retiredEvent, {});
    expect(fromLog?.__typename).toBe('MemberRetired');
    expect(fromLog && 'member' in fromLog ? fromLog.member.retiredAt : null).not.toBeNull();
    await h.close();
  });
});
