import { DomainError, ErrorCode, Limits } from '@agent-teams/core';
import fc from 'fast-check';
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

describe('team_message against hostile arguments', () => {
  it('answers any JSON arguments with a result or a DomainError, never anything else', async () => {
    const h = harness();
    const { call } = await asLead(h);
    const to = fc.oneof(
      fc.constant('all'),
      fc.array(fc.oneof(fc.constantFrom('Scout', 'Critic', 'Lead'), fc.string())),
      fc.anything(),
    );
    const args = fc.record(
      {
        to,
        text: fc.oneof(fc.string(), fc.anything()),
        delivery: fc.oneof(fc.constantFrom('quiet', 'follow_up'), fc.anything()),
        message_id: fc.oneof(fc.string(), fc.anything()),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(args, fc.anything()), async (value) => {
        try {
          await call(value as Record<string, unknown>);
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('team_broadcast limits', () => {
  it('counts a broadcast like one request per recipient against the team limit, all or none', async () => {
    const h = harness();
    const { team, lead, scout, call } = await asLead(h);
    // The lead's own job is the team's first request; fill up to one short of the limit.
    for (let i = 1; i < Limits.requestsPerTeam - 1; i += 1)
      await sendOne(h, team.id, scout.id, `task ${i}`, `fill-${i}`);
    const job = await sendOne(h, team.id, lead.id, 'broadcast now', 'lead-2');
    expect(job).toBeDefined();
    const broadcast = () => h.core.tools.invoke(job.id, 'team_broadcast', { text: 'everyone?', request_id: 'b1' });
    await expectCode(broadcast, ErrorCode.REQUEST_LIMIT);
    // A full team still takes messages: they are not requests.
    expect(await call({ to: ['Scout'], text: 'x', delivery: 'follow_up', message_id: 'ok' })).toMatchObject({
      message_id: 'ok',
    });
  });
});
