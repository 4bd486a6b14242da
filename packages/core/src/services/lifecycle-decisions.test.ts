import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../errors/codes.js';
import { refusal } from '../jobs/make-test-job.js';
import type { ConversationId, JobId, MemberId, TeamId } from '../model/ids.js';
import type { Member } from '../model/team.js';
import type { ConversationMessage } from '../ports/team-store.js';
import { checkSpawnRoom, findMember, forkSeed, parseSpawnContext } from './lifecycle-decisions.js';

const member = (name: string, retired = false): Member => ({
  id: `member_${name}` as MemberId,
  teamId: 'team_1' as TeamId,
  position: 0,
  name,
  agentId: 'researcher' as Member['agentId'],
  conversationId: `conversation_${name}` as ConversationId,
  role: null,
  isLead: false,
  retiredAt: retired ? '2026-01-01T00:00:00.000Z' : null,
});

describe('spawn rules', () => {
  it('keeps names taken for good, retired members included', () => {
    const roster = [member('Ada'), member('Bob', true)];
    expect(refusal(() => checkSpawnRoom(roster, 'Bob', { maxActive: 8, maxEver: 64 })).code).toBe(
      ErrorCode.DUPLICATE_MEMBER_NAME,
    );
    expect(() => checkSpawnRoom(roster, 'Cy', { maxActive: 8, maxEver: 64 })).not.toThrow();
  });

  it('counts active members against maxActive (n-1 passes, n refuses) and every row against maxEver', () => {
    const active = (n: number) => Array.from({ length: n }, (_, i) => member(`M${i}`));
    expect(() => checkSpawnRoom(active(7), 'New', { maxActive: 8, maxEver: 64 })).not.toThrow();
    expect(refusal(() => checkSpawnRoom(active(8), 'New', { maxActive: 8, maxEver: 64 })).code).toBe(
      ErrorCode.MEMBER_COUNT,
    );
    const retired = Array.from({ length: 3 }, (_, i) => member(`R${i}`, true));
    expect(refusal(() => checkSpawnRoom([...active(1), ...retired], 'New', { maxActive: 8, maxEver: 4 })).code).toBe(
      ErrorCode.MEMBER_COUNT,
    );
  });

  it('reads context as fresh (default) or fork, and finds members by id or trimmed name', () => {
    expect(parseSpawnContext('context', undefined)).toBe('fresh');
    expect(parseSpawnContext('context', 'fork')).toBe('fork');
    expect(refusal(() => parseSpawnContext('context', 'FORK')).code).toBe(ErrorCode.INVALID_INPUT);
    const roster = [member('Ada'), member('Bob')];
    expect(findMember(roster, 'member_Bob', 'member').name).toBe('Bob');
    expect(findMember(roster, ' Ada ', 'member').name).toBe('Ada');
    expect(refusal(() => findMember(roster, 'Cy', 'member')).code).toBe(ErrorCode.NOT_FOUND);
    expect(refusal(() => findMember(roster, 3, 'member')).code).toBe(ErrorCode.INVALID_INPUT);
  });
});

describe('the fork seed', () => {
  const message = (
    seq: number,
    jobId: string,
    role: ConversationMessage['role'],
    text: string,
    toolName: string | null = null,
  ) =>
    ({
      id: `m${seq}`,
      conversationId: 'c' as ConversationId,
      seq,
      role,
      text,
      toolName,
      jobId: jobId as JobId,
      createdAt: '',
    }) as const;

  it('takes whole completed turns, newest first within the budget, without tool traffic', () => {
    const log = [
      message(1, 'job_a', 'USER', 'first 研究'),
      message(2, 'job_a', 'ASSISTANT', 'answer a'),
      message(3, 'job_b', 'USER', 'second'),
      message(4, 'job_b', 'ASSISTANT', '{}', 'read_team_context'),
      message(5, 'job_b', 'TOOL', '{"goal":"x"}', 'read_team_context'),
      message(6, 'job_b', 'ASSISTANT', 'answer b'),
      message(7, 'job_c', 'USER', 'still running'),
    ];
    const completed = new Set(['job_a', 'job_b']);
    expect(forkSeed(log, completed, 1_000).map((m) => [m.role, m.text, m.jobId])).toEqual([
      ['USER', 'first 研究', null],
      ['ASSISTANT', 'answer a', null],
      ['USER', 'second', null],
      ['ASSISTANT', 'answer b', null],
    ]);
    // 'second' + 'answer b' = 14 bytes: exactly the budget keeps turn b only; one byte less keeps none.
    expect(forkSeed(log, completed, 14).map((m) => m.text)).toEqual(['second', 'answer b']);
    expect(forkSeed(log, completed, 13)).toEqual([]);
  });
});
