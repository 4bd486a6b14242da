import { RuntimeError } from '@agent-teams/core';
import { MemoryLogger } from '@agent-teams/testkit';
import { expect, it, vi } from 'vitest';
import { CREATE_TEAM, expectData, SEND_REQUEST, teamInput } from '../graphql/fixtures.js';
import { gqlOf, openTestApp } from '../support/test-app.js';

it("names the job and its team in the line of a job's failed scheduler step", async () => {
  const logger = new MemoryLogger();
  const app = await openTestApp({
    logger,
    // The runtime refuses every turn, so the step logs "runtime rejected the job".
    wrapRuntime: (runtime) =>
      Object.assign(Object.create(runtime), {
        start: () => Promise.reject(new RuntimeError('rejected', 'not this one')),
      }),
  });
  try {
    const gql = gqlOf(app);
    const team = expectData(await gql(CREATE_TEAM, { input: teamInput() })).createTeam as {
      team: { id: string; members: { id: string }[] };
    };
    const sent = expectData(
      await gql(SEND_REQUEST, {
        input: { teamId: team.team.id, memberIds: [team.team.members[0]?.id], text: 'hi', clientRequestId: 'log-1' },
      }),
    ).sendRequest as { jobs: { id: string }[] };
    const rejected = () => logger.entries.find((line) => line.message === 'runtime rejected the job');
    await vi.waitFor(() => expect(rejected()).toBeDefined(), { timeout: 20_000 });
    expect(rejected()?.fields).toMatchObject({ jobId: sent.jobs[0]?.id, teamId: team.team.id, kind: 'rejected' });
  } finally {
    await app.close();
  }
});
