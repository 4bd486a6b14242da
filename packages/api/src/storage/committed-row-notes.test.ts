import { type Job, type JobId, JobPhase, type RecordId, type RecordMessage } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { CommittedRowNotes } from './committed-row-notes.js';

const job = (text: string, result: string | null = null): Job =>
  ({
    id: 'job_1' as JobId,
    phase: result === null ? JobPhase.RUNNING : JobPhase.COMPLETED,
    text,
    result: result === null ? null : { text: result, truncated: false },
  }) as Job;
const record = (id: string, text: string): RecordMessage => ({ id: id as RecordId, text }) as RecordMessage;

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
    const restore = notes.mark();
    notes.noteRecord(record('rec_2', 'rolled back'));
    notes.noteJob(job('rolled back'));
    restore();
    expect([...notes.records.keys()]).toEqual(['rec_1']);
    expect(notes.jobs.size).toBe(0);
  });
});
