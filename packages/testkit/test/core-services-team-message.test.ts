import { ErrorCode } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { expectCode, type Harness, harness, leadTeam, sendOne } from './core-harness.js';

/** A team of three and a job in the lead's conversation to call the tools as the lead. */
async function asLead(h: Harness) {
  const { team, lead, scout, critic } = await leadTeam(h);
  const job = await sendOne(h, team.id, lead.id, 'coordinate');
  const call = (args: Record<string, unknown>) => h.core.tools.invoke(job.id, 'team_message', args);
  return { team, lead, scout, critic, call };
}

describe('team_message (member tool)', () => {
  it('messages named members and answers the message id and each recipient’s state', async () => {
    const h = harness();
    const { scout, critic, call } = await asLead(h);
    const args = { to: ['Scout', critic.id], text: 'status?', delivery: 'quiet', message_id: 'm1' };
    expect(await call(args)).toEqual({
      message_id: 'm1',
      recipients: [
        { member: 'Scout', state: 'queued' },
        { member: 'Critic', state: 'queued' },
      ],
    });
    // A retry changes nothing and answers the same.
    expect(await call(args)).toEqual(await call(args));
    expect((await h.core.messages.mailbox(scout.id)).map((m) => m.key)).toEqual(['m1']);
    expect((await h.core.messages.mailbox(critic.id)).map((m) => m.text)).toEqual(['status?']);
  });

  it('sends to every other active member with "all"', async () => {
    const h = harness();
    const { call } = await asLead(h);
    const answer = (await call({ to: 'all', text: 'hi', delivery: 'follow_up', message_id: 'm2' })) as {
      recipients: { member: string }[];
    };
    expect(answer.recipients.map((r) => r.member)).toEqual(['Scout', 'Critic']);
  });

  it('refuses itself, unknown members, bad deliveries and a missing message_id', async () => {
    const h = harness();
    const { call } = await asLead(h);
    const base = { text: 'x', delivery: 'quiet', message_id: 'm3' };
    await expectCode(() => call({ ...base, to: ['Lead'] }), ErrorCode.SELF_REQUEST);
    await expectCode(() => call({ ...base, to: ['Nobody'] }), ErrorCode.NOT_FOUND);
    await expectCode(() => call({ ...base, to: [] }), ErrorCode.INVALID_INPUT);
    await expectCode(() => call({ ...base, to: ['Scout'], delivery: 'loud' }), ErrorCode.INVALID_INPUT);
    await expectCode(() => call({ to: ['Scout'], text: 'x', delivery: 'quiet' }), ErrorCode.INVALID_INPUT);
    await expectCode(() => call({ ...base, to: ['Scout'], extra: 1 }), ErrorCode.INVALID_INPUT);
  });
});
