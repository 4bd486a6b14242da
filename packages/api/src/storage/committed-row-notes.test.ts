import {
  type Job,
  type JobId,
  JobPhase,
  type Member,
  type MemberId,
  type RecordId,
  type RecordMessage,
  type Team,
  type TeamId,
} from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { CommittedRowNotes } from './committed-row-notes.js';

const job = (text: string, result: string | null = null): Job =>
  ({
    id: 'job_1' as JobId,
    phase: result === null ? JobPhase.RUNNING : JobPhase.COMPLETED,
    text,
    result: result === null ? null : { text: result, truncated: false },
  }) as Job;
const record = (id: string, text: string, teamId = 'team_1'): RecordMessage =>
  ({ id: id as RecordId, teamId: teamId as TeamId, text }) as RecordMessage;
const team = (revision: number): Team => ({ id: 'team_1' as TeamId, revision }) as Team;
const member = (id: string, retiredAt: string | null = null): Member =>
  ({ id: id as MemberId, teamId: 'team_1' as TeamId, retiredAt }) as Member;
const TEAM = 'team_1' as TeamId;

describe('CommittedRowNotes', () => {
  it('keeps the last note of a job, in ASCII, CJK and emoji text', () => {
    const notes = new CommittedRowNotes();
    notes.noteJob(job('Check the numbers'));
    notes.noteJob(job('数字を確認して 😀', 'done 😀'));
    expect(notes.jobs.get('job_1' as JobId)?.result?.text).toBe('done 😀');
    expect(notes.jobs.get('job_1' as JobId)?.text).toBe('数字を確認して 😀');
  });

  it('drops a job whose text the database would not store as given (a lone surrogate), earlier notes too', () => {
    const notes = new CommittedRowNotes();
    notes.noteJob(job('fine'));
    notes.noteJob(job('fine', 'half an emoji \ud83d'));
    expect(notes.jobs.has('job_1' as JobId)).toBe(false);
    notes.noteJob(job('\udc00 alone'));
    expect(notes.jobs.has('job_1' as JobId)).toBe(false);
  });

  it('keeps records stored as given and skips one with a lone surrogate', () => {
    const notes = new CommittedRowNotes();
    notes.noteRecord(record('rec_1', 'plain'));
    notes.noteRecord(record('rec_2', 'lone \ud800 here'));
    notes.noteRecord(record('rec_3', '😀 pair'));
    expect([...notes.records.keys()]).toEqual(['rec_1', 'rec_3']);
  });

  it('drops the notes taken since a mark when the mark is restored', () => {
    const notes = new CommittedRowNotes();
    notes.noteRecord(record('rec_1', 'kept'));
    notes.noteTeam(team(1));
    const restore = notes.mark();
    notes.noteRecord(record('rec_2', 'rolled back'));
    notes.noteJob(job('rolled back'));
    notes.noteTeam(team(2));
    restore();
    expect([...notes.records.keys()]).toEqual(['rec_1']);
    expect(notes.jobs.size).toBe(0);
    expect(notes.teams.get('team_1' as TeamId)?.revision).toBe(1);
  });

  it("keeps the notes of a statement sent before a mark and answered after it, through that mark's rollback", () => {
    const notes = new CommittedRowNotes();
    const sentBefore = notes.epoch();
    const outer = notes.mark();
    const sentBetween = notes.epoch();
    const inner = notes.mark();
    // Answered after both marks, in the order sent: the team as the first statement left it.
    notes.noteAsOf(sentBefore, () => notes.noteTeam(team(2)));
    notes.noteAsOf(sentBefore, () => notes.noteRecord(record('rec_before', 'sent before both')));
    notes.noteAsOf(sentBetween, () => notes.noteRecord(record('rec_between', 'sent between')));
    notes.noteTeam(team(3));
    inner();
    expect([...notes.records.keys()]).toEqual(['rec_before', 'rec_between']);
    expect(notes.teams.get(TEAM)?.revision).toBe(2);
    outer();
    expect([...notes.records.keys()]).toEqual(['rec_before']);
    expect(notes.teams.get(TEAM)?.revision).toBe(2);
  });

  it('keeps the last note of a team, and none once its columns were written after it', () => {
    const notes = new CommittedRowNotes();
    notes.noteTeam(team(1));
    notes.noteTeam(team(2));
    expect([...notes.teams.values()].map((noted) => noted.revision)).toEqual([2]);
    notes.forgetTeam(TEAM);
    expect(notes.teams.size).toBe(0);
  });

  it('keeps a roster read under the lock until a member of its team changes, its members as the last note left them', () => {
    const notes = new CommittedRowNotes();
    expect(notes.roster(TEAM)).toBeUndefined();
    notes.noteRoster(TEAM, [member('m_1'), member('m_2')]);
    expect(notes.roster(TEAM)?.map((m) => m.id)).toEqual(['m_1', 'm_2']);
    expect(notes.roster('team_2' as TeamId)).toBeUndefined();
    notes.rosterChanged(TEAM);
    notes.noteMembers([member('m_2', '2026-12-05T00:00:00.000Z')]);
    expect(notes.roster(TEAM)).toBeUndefined();
    expect(notes.members.get('m_2' as MemberId)?.retiredAt).toBe('2026-12-05T00:00:00.000Z');
    expect([...notes.members.keys()]).toEqual(['m_1', 'm_2']);
  });

  it('forgets a roster read in work rolled back to a mark, and keeps one read before it', () => {
    const notes = new CommittedRowNotes();
    notes.noteRoster(TEAM, [member('m_1')]);
    const restore = notes.mark();
    notes.rosterChanged(TEAM);
    notes.noteRoster(TEAM, [member('m_1'), member('m_new')]);
    restore();
    expect(notes.roster(TEAM)?.map((m) => m.id)).toEqual(['m_1']);
    expect([...notes.members.keys()]).toEqual(['m_1']);
  });

  it("keeps a team's newest records until a record of that team is appended, lone surrogate or not", () => {
    const notes = new CommittedRowNotes();
    const newest = [record('rec_1', 'first'), record('rec_2', '数据 😀')];
    expect(notes.recentRecords(TEAM)).toBeUndefined();
    notes.noteRecentRecords(TEAM, newest);
    notes.noteRecentRecords('team_2' as TeamId, []);
    expect(notes.recentRecords(TEAM)).toBe(newest);
    notes.noteRecord(record('rec_3', 'for another team', 'team_2'));
    expect(notes.recentRecords(TEAM)).toBe(newest);
    expect(notes.recentRecords('team_2' as TeamId)).toBeUndefined();
    notes.noteRecord(record('rec_4', 'lone \ud800, stored otherwise'));
    expect(notes.recentRecords(TEAM)).toBeUndefined();
  });

  it('forgets newest records read in work rolled back to a mark, and keeps those read before it', () => {
    const notes = new CommittedRowNotes();
    const before = [record('rec_1', 'kept')];
    notes.noteRecentRecords(TEAM, before);
    const restore = notes.mark();
    notes.noteRecord(record('rec_2', 'rolled back'));
    notes.noteRecentRecords(TEAM, [...before, record('rec_2', 'rolled back')]);
    restore();
    expect(notes.recentRecords(TEAM)).toBe(before);
  });
});
