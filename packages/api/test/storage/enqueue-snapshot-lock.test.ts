// An enqueue's reads are sent behind its team's lock, before the lock's answer
// (`readEnqueueSnapshot`, decision 0253). When the lock fails, its error is the read's: never one
// of the reads', never an unhandled rejection, whatever the reads did meanwhile.
import { DomainError, ErrorCode } from '@agent-teams/core';
import { afterEach, describe, expect, it } from 'vitest';
import { readEnqueueSnapshot } from '../../src/storage/enqueue-snapshot.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { WriteScope } from '../../src/storage/write-transaction.js';
import { closeHarnesses, openHarness } from '../scheduler/scheduler-harness.js';
import { databaseTargets } from '../support/database-targets.js';

const TARGETS = databaseTargets('agent_teams_snapshot_lock');
afterEach(closeHarnesses);

describe.each(TARGETS)('the enqueue snapshot on %s', (_, make) => {
  it('rejects with the lock’s error whether its reads succeed or fail', async () => {
    const h = await openHarness({ file: await make() });
    const { team, members } = await h.team(['researcher', 'reviewer']);
    const db = h.database.db;
    const scope = new WriteScope(
      db,
      { db, dialect: h.database.dialect, sink: null, ids: null },
      new Date().toISOString(),
    );
    const args = (teamId: string) =>
      ({
        owner: team.owner,
        teamId,
        keys: [{ requesterConversationId: null, clientKey: 'k', memberId: members[0]?.id ?? '' }],
        roots: [],
        now: scope.now,
        withMembers: true,
        decide: () => {
          throw new Error('not asked here');
        },
      }) as unknown as Parameters<typeof readEnqueueSnapshot>[2];
    // The lock refused (NOT_FOUND), its reads fine: the refusal is what the read says.
    const refused = new DomainError(ErrorCode.NOT_FOUND, 'team not found');
    await expect(readEnqueueSnapshot(scope, Promise.reject(refused), args(team.id))).rejects.toBe(refused);
    // The lock failed on the server and its reads with it (as an aborted transaction fails them):
    // here the reads fail first, on a closed handle, and the lock's answer comes later. Still the
    // lock's error, and no read's rejection unhandled.
    const closed = await openDatabase(':memory:');
    await closed.close();
    const failing = new WriteScope(
      closed.db,
      { db: closed.db, dialect: h.database.dialect, sink: null, ids: null },
      scope.now,
    );
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    let failLock: (error: unknown) => void = () => undefined;
    const locking = new Promise<never>((_, reject) => {
      failLock = reject;
    });
    const reading = readEnqueueSnapshot(failing, locking, args(team.id));
    // A turn of the event loop: the closed handle has refused the reads by then.
    await new Promise((resolve) => setImmediate(resolve));
    failLock(deadlock);
    await expect(reading).rejects.toBe(deadlock);
    // And the lock fine: the snapshot as read (no job yet under the key, the roster in order).
    const snapshot = await readEnqueueSnapshot(
      scope,
      db.selectFrom('teams').selectAll().where('id', '=', team.id).executeTakeFirstOrThrow(),
      args(team.id),
    );
    expect(snapshot.existing).toEqual([]);
    expect(snapshot.members?.map((member) => member.id)).toEqual(members.map((member) => member.id));
  });
});
