// On PostgreSQL an admission pass reads what a job's freeze needs (the member's undelivered
// messages, the team's roster and newest records) in the statement that locks the team and the
// job (`team-job-lock.ts`, decision 0250), not in three round trips after it. What it brings must
// be exactly what those reads give; SQLite keeps its separate reads.

import { JobPhase, Limits } from '@agent-teams/core';
import { afterEach, describe, expect, it } from 'vitest';
import { undeliveredMessages } from '../../src/storage/mailbox.js';
import { recentRecords } from '../../src/storage/record-reads.js';
import { lockTeamIfFreeWithReads, lockTeamWithJob } from '../../src/storage/team-job-lock.js';
import { listMembers } from '../../src/storage/team-reads.js';
import { WriteScope } from '../../src/storage/write-transaction.js';
import { closeHarnesses, OWNER, openHarness, waitForPhases } from '../scheduler/scheduler-harness.js';
import { databaseTargets } from '../support/database-targets.js';

const TARGETS = databaseTargets('agent_teams_freeze_reads');
afterEach(closeHarnesses);

describe.each(TARGETS)('the locked read of a freeze on %s', (name, make) => {
  it('brings the mailbox, the roster and the newest records exactly as their own reads give them', async () => {
    const h = await openHarness({ file: await make() });
    const { team, members } = await h.team(['researcher', 'reviewer', 'writer']);
    const [first, second, third] = members;
    if (!first || !second || !third) throw new Error('no members');
    // More records than a turn's context holds, so the read must keep only the newest, in order.
    const sent = [];
    for (let i = 0; i < 4; i += 1) sent.push(...(await h.send(team, members, `Instant answer ${i} 数据 😀`)));
    await waitForPhases(
      h,
      sent.map((job) => job.id),
      [JobPhase.COMPLETED],
    );
    // Undelivered messages: two for the first member (in send order), one for another.
    for (const [key, to, text] of [
      ['m1', first, 'Read this first 数据'],
      ['m2', second, 'Not for the first member'],
      ['m3', first, 'And then this 😀'],
    ] as const) {
      await h.core.messages.send(OWNER, {
        teamId: team.id,
        memberIds: [to.id],
        text,
        delivery: 'QUIET',
        clientRequestId: key,
      });
    }
    const job = sent.find((candidate) => candidate.memberId === first.id);
    if (!job) throw new Error('no job of the first member');

    const db = h.database.db;
    const scope = new WriteScope(
      db,
      { db, dialect: h.database.dialect, sink: null, ids: null },
      new Date().toISOString(),
    );
    const expected = {
      mailbox: await undeliveredMessages(db, first.id),
      roster: await listMembers(db, [team.id]),
      records: await recentRecords(db, team.id, Limits.contextMessages),
    };
    expect(expected.mailbox.map((message) => message.text)).toEqual(['Read this first 数据', 'And then this 😀']);
    expect(expected.records).toHaveLength(Limits.contextMessages);

    const all = await lockTeamWithJob(scope, team.id, job.id, { roster: true, records: true });
    const none = await lockTeamWithJob(scope, team.id, job.id, { roster: false, records: false });
    expect(all?.job.id).toBe(job.id);
    expect(all?.team.id).toBe(team.id);
    if (name === 'PostgreSQL') {
      expect({ mailbox: all?.mailbox, roster: all?.roster, records: all?.records }).toEqual(expected);
      expect({ mailbox: none?.mailbox, roster: none?.roster, records: none?.records }).toEqual({
        mailbox: expected.mailbox,
        roster: undefined,
        records: undefined,
      });
      // The team's and the job's columns are as the plain reads give them (no extra column leaks in).
      expect(Object.keys(all?.job ?? {}).sort()).toEqual(Object.keys(none?.job ?? {}).sort());
      expect(Object.keys(all?.job ?? {})).not.toContain('freeze__mailbox');
    } else {
      // SQLite's reads cost no round trip: they stay the freeze's own.
      expect([all?.mailbox, all?.roster, all?.records]).toEqual([undefined, undefined, undefined]);
    }
    // A ride's lock (the team only if free, the job as its enqueue inserted it) brings the same.
    const free = await lockTeamIfFreeWithReads(scope, team.id, first.id, { roster: true, records: true });
    expect(free?.team.id).toBe(team.id);
    expect(Object.keys(free?.team ?? {}).sort()).toEqual(Object.keys(all?.team ?? {}).sort());
    if (name === 'PostgreSQL') {
      expect({ mailbox: free?.mailbox, roster: free?.roster, records: free?.records }).toEqual(expected);
      const mailboxOnly = await lockTeamIfFreeWithReads(scope, team.id, second.id, { roster: false, records: false });
      expect(mailboxOnly?.mailbox?.map((message) => message.text)).toEqual(['Not for the first member']);
      expect([mailboxOnly?.roster, mailboxOnly?.records]).toEqual([undefined, undefined]);
    } else {
      expect([free?.mailbox, free?.roster, free?.records]).toEqual([undefined, undefined, undefined]);
    }

    // Another team's job is not read under this team's lock.
    const other = await h.team(['researcher', 'reviewer']);
    expect(await lockTeamWithJob(scope, other.team.id, job.id, { roster: true, records: true })).toBeUndefined();
    await h.close();
  });
});
