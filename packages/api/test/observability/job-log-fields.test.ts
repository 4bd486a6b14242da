import { RuntimeError } from '@agent-teams/core';
import { MemoryLogger } from '@agent-teams/testkit';
import { expect, it, vi } from 'vitest';
import { logFields } from '../../src/async/log-context.js';
import { CREATE_TEAM, expectData, SEND_REQUEST, teamInput } from '../graphql/fixtures.js';
import { gqlOf, openTestApp } from '../support/test-app.js';

/** Keeps each line's message with the log fields current when it was written (what the console logger adds). */
class ContextLogger extends MemoryLogger {
  readonly contexts: { message: string; context: Readonly<Record<string, string>> }[] = [];
  override warn(message: string, fields: Record<string, unknown> = {}): void {
    this.contexts.push({ message, context: logFields() });
    super.warn(message, fields);
  }
}

it("gives every log line written during a job's scheduler step the job and team ids", async () => {
  const logger = new ContextLogger();
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
    const rejected = () => logger.contexts.find((line) => line.message === 'runtime rejected the job');
    await vi.waitFor(() => expect(rejected()).toBeDefined(), { timeout: 20_000 });
    expect(rejected()?.context).toEqual({ jobId: sent.jobs[0]?.id, teamId: team.team.id });
    // Outside a request or a step there are none.
    expect(logFields()).toEqual({});
  } finally {
    await app.close();
  }
});
