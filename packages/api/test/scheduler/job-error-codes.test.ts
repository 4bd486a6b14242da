import { JobErrorCode, JobPhase } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { gqlOf } from '../support/test-app.js';
import { type Harness, harnessPerTest, waitForPhases } from './scheduler-harness.js';

let h: Harness;
harnessPerTest((opened) => {
  h = opened;
});

const JOB = 'query($id: ID!) { job(id: $id) { status error errorCode } }';

describe('Job.errorCode over GraphQL', () => {
  it('says TIMEOUT, RUNTIME_ERROR and CANCELLED_BY_PERSON for the reasons the scheduler knows, null when done', async () => {
    const gql = gqlOf(h.app);
    const { team, members } = await h.team(['hasty', 'researcher', 'researcher', 'researcher']);
    const [slow, broken, done, waiting] = [
      ...(await h.send(team, members.slice(0, 1), '!sleep 5000')),
      ...(await h.send(team, members.slice(1, 2), '!fail the tool broke')),
      ...(await h.send(team, members.slice(2, 3), '!reply fine')),
      ...(await h.send(team, members.slice(3, 4), '!sleep 60000')),
    ];
    if (!slow || !broken || !done || !waiting) throw new Error('four jobs expected');
    const cancel = await gql('mutation($id: ID!) { cancelJob(input: { jobId: $id }) { job { id } } }', {
      id: waiting.id,
    });
    expect(cancel.errors).toEqual([]);
    await waitForPhases(
      h,
      [slow.id, broken.id, done.id, waiting.id],
      [JobPhase.FAILED, JobPhase.COMPLETED, JobPhase.CANCELLED],
    );
    const codeOf = async (id: string) => (await gql(JOB, { id })).data?.job as Record<string, unknown>;
    expect(await codeOf(slow.id)).toMatchObject({ status: 'FAILED', errorCode: JobErrorCode.TIMEOUT });
    expect(await codeOf(broken.id)).toMatchObject({ status: 'FAILED', errorCode: JobErrorCode.RUNTIME_ERROR });
    expect(await codeOf(done.id)).toMatchObject({ status: 'COMPLETED', errorCode: null });
    expect(await codeOf(waiting.id)).toMatchObject({
      status: 'CANCELLED',
      errorCode: JobErrorCode.CANCELLED_BY_PERSON,
    });
  });
});
