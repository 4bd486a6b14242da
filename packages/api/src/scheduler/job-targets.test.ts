import {
  type AgentDefinition,
  type AgentRuntime,
  asAgentId,
  asConversationId,
  asJobId,
  asMemberId,
  asTeamId,
  type Job,
  Limits,
  type Member,
  type MemberId,
  type MemberToolPort,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { createConfigCatalog } from '../adapters/config-catalog.js';
import { createRuntimeRegistry } from '../adapters/runtime-registry.js';
import { JobTargets, MEMBERS_KEPT } from './job-targets.js';

const AGENT: AgentDefinition = {
  id: asAgentId('researcher'),
  name: 'researcher',
  title: 'Researcher',
  description: 'test',
  runtime: 'scripted',
  timeoutMs: Limits.defaultTurnTimeoutMs,
  settings: {},
};

/** A member `i` of one team, with the agent above. */
const member = (i: number): Member => ({
  id: asMemberId(`m${i}`),
  teamId: asTeamId('t1'),
  position: i,
  name: `member ${i}`,
  agentId: AGENT.id,
  conversationId: asConversationId(`c${i}`),
  role: null,
  isLead: false,
  retiredAt: null,
});

/** A job of member `i`: only the fields `resolve` reads matter. */
const jobOf = (i: number) =>
  ({
    id: asJobId(`j${i}`),
    teamId: asTeamId('t1'),
    memberId: asMemberId(`m${i}`),
    conversationId: `c${i}`,
  }) as unknown as Job;

describe('JobTargets', () => {
  it('keeps the members used last, at most MEMBERS_KEPT, and reads again one it let go', async () => {
    const reads: MemberId[] = [];
    const targets = new JobTargets({
      store: {
        findMembers: async (ids) => {
          reads.push(...ids);
          return ids.map((id) => member(Number(id.slice(1))));
        },
      },
      catalog: createConfigCatalog([AGENT]),
      runtimes: createRuntimeRegistry([{ name: 'scripted' } as unknown as AgentRuntime]),
      tools: () => ({}) as MemberToolPort,
      onRuntime: () => {},
    });
    // n − 1, n: every member kept; each read once.
    for (let i = 0; i < MEMBERS_KEPT; i += 1) expect((await targets.resolve(jobOf(i))).ok).toBe(true);
    expect(targets.membersKept).toBe(MEMBERS_KEPT);
    expect(reads).toHaveLength(MEMBERS_KEPT);
    // Member 0 used again: the least used is now member 1.
    await targets.resolve(jobOf(0));
    expect(reads).toHaveLength(MEMBERS_KEPT);
    // n + 1: one more member lets member 1 go, not member 0.
    await targets.resolve(jobOf(MEMBERS_KEPT));
    expect(targets.membersKept).toBe(MEMBERS_KEPT);
    await targets.resolve(jobOf(0));
    expect(reads).toHaveLength(MEMBERS_KEPT + 1);
    const resolved = await targets.resolve(jobOf(1));
    expect(resolved.ok && resolved.context.memberId).toBe('m1');
    expect(reads.slice(-1)).toEqual(['m1']);
  });
});
