import { JobPhase } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { sqlCompilers } from '../../test/support/sql-compilers.js';
import { literalPhase, literalPhases } from './literal-phase.js';

const { sqlite, postgres } = sqlCompilers();

describe('literalPhase and literalPhases', () => {
  it.each(Object.values(JobPhase))('writes %s into the text, leaving only the other values bound', (phase) => {
    for (const db of [sqlite, postgres]) {
      const compiled = db
        .selectFrom('jobs')
        .select('id')
        .where('owner', '=', 'owner_1')
        .where('phase', '=', literalPhase(phase))
        .compile();
      expect(compiled.sql).toMatch(new RegExp(`"phase" = '${phase}'$`));
      expect(compiled.parameters).toEqual(['owner_1']);
    }
  });

  it('writes one text for one set of phases, whatever their order and repeats', () => {
    const text = (phases: JobPhase[]) =>
      sqlite.selectFrom('jobs').select('id').where('phase', 'in', literalPhases(phases)).compile();
    const a = text([JobPhase.RUNNING, JobPhase.QUEUED, JobPhase.RUNNING]);
    const b = text([JobPhase.QUEUED, JobPhase.RUNNING]);
    expect(a.sql).toBe(b.sql);
    expect(a.sql).toMatch(/"phase" in \('QUEUED', 'RUNNING'\)$/);
    expect(a.parameters).toEqual([]);
  });

  it.each(["RUNNING' or '1' = '1", 'running', 'RUNNING ', '', 'UNKNOWN'])(
    'refuses %j: only a phase of JobPhase reaches the SQL',
    (text) => {
      expect(() => literalPhase(text as JobPhase)).toThrow(RangeError);
      expect(() => literalPhases([JobPhase.QUEUED, text as JobPhase])).toThrow(RangeError);
    },
  );

  it('refuses what is not text at all', () => {
    for (const value of [null, undefined, 1, {}, ['RUNNING']]) {
      expect(() => literalPhase(value as unknown as JobPhase)).toThrow(RangeError);
    }
  });
});
