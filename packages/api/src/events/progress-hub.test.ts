import { asJobId, type Logger } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { createProgressHub, type JobProgressNotice } from './progress-hub.js';

const logger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
const notice = (jobId: string, textDelta: string): JobProgressNotice => ({ jobId: asJobId(jobId), textDelta });

describe('createProgressHub', () => {
  it('hands a notice to the listeners of its job and to those of every job, not to other jobs', () => {
    const hub = createProgressHub(logger);
    const heard: string[] = [];
    hub.listen((n) => heard.push(`all:${n.textDelta}`));
    hub.listen((n) => heard.push(`1:${n.textDelta}`), asJobId('job_1'));
    hub.listen((n) => heard.push(`2:${n.textDelta}`), asJobId('job_2'));
    hub.publish(notice('job_1', 'a'));
    hub.publish(notice('job_3', 'b'));
    expect(heard).toEqual(['all:a', '1:a', 'all:b']);
    expect(hub.listening).toBe(3);
  });

  it('counts and removes registrations (an unsubscribe twice removes once)', () => {
    const hub = createProgressHub(logger);
    const heard: string[] = [];
    const off = hub.listen((n) => heard.push(n.textDelta ?? ''), asJobId('job_1'));
    const other = hub.listen(() => {}, asJobId('job_1'));
    off();
    off();
    expect(hub.listening).toBe(1);
    hub.publish(notice('job_1', 'x'));
    other();
    expect(hub.listening).toBe(0);
    // A new listener of the job after its last one left still hears it.
    hub.listen((n) => heard.push(`again:${n.textDelta}`), asJobId('job_1'));
    hub.publish(notice('job_1', 'y'));
    expect(heard).toEqual(['again:y']);
  });

  it('keeps handing out a notice when a listener throws or unsubscribes another', () => {
    const errors: unknown[] = [];
    const hub = createProgressHub({ ...logger, error: (_message, fields) => errors.push(fields) });
    const heard: string[] = [];
    let offB: () => void = () => {};
    hub.listen(() => {
      offB();
      throw new Error('boom');
    }, asJobId('job_1'));
    offB = hub.listen(() => heard.push('b'), asJobId('job_1'));
    hub.publish(notice('job_1', 'x'));
    hub.publish(notice('job_1', 'y'));
    // b was in the copy taken for the first notice, and gone for the second.
    expect(heard).toEqual(['b']);
    expect(errors).toHaveLength(2);
  });
});
