import { asJobId, asTeamId, type Core, type Job, type JobId, type Team, type TeamId } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { createLoaders } from './loaders.js';

/** A core whose `load.teams` and `load.jobs` answer from maps and count their calls; nothing else is reachable. */
function countingCore() {
  const calls = { teams: [] as TeamId[][], jobs: [] as JobId[][] };
  const core = {
    load: {
      teams: async (ids: readonly TeamId[]) => {
        calls.teams.push([...ids]);
        return ids.filter((id) => id !== 'team_gone').map((id) => ({ id }) as unknown as Team);
      },
      jobs: async (ids: readonly JobId[]) => {
        calls.jobs.push([...ids]);
        return ids.map((id) => ({ id }) as unknown as Job);
      },
    },
  } as unknown as Core;
  return { core, calls };
}

describe('the loaders of one operation', () => {
  it('are made on first use, once: the same loader every time, and nothing loaded before', () => {
    const { core, calls } = countingCore();
    // Making the loaders reads nothing; each one asked for is made once per operation.
    const loaders = createLoaders(core);
    expect(calls.teams).toEqual([]);
    expect(loaders.teams).toBe(loaders.teams);
    expect(loaders.jobs).toBe(loaders.jobs);
    expect(loaders.teams).not.toBe(createLoaders(core).teams);
  });

  it('batch the ids asked in one tick, cache them, answer null for a missing one, and forget on clearAll', async () => {
    const { core, calls } = countingCore();
    const loaders = createLoaders(core);
    const [a, b, gone] = await Promise.all([
      loaders.teams.load(asTeamId('team_a')),
      loaders.teams.load(asTeamId('team_b')),
      loaders.teams.load(asTeamId('team_gone')),
    ]);
    expect(a?.id).toBe('team_a');
    expect(b?.id).toBe('team_b');
    expect(gone).toBeNull();
    expect(calls.teams).toEqual([['team_a', 'team_b', 'team_gone']]);
    await loaders.teams.load(asTeamId('team_a'));
    expect(calls.teams).toHaveLength(1);
    // A primed job is not loaded; clearAll forgets it and the teams, and leaves unmade loaders unmade.
    loaders.jobs.prime(asJobId('job_1'), { id: 'job_1' } as unknown as Job);
    expect((await loaders.jobs.load(asJobId('job_1')))?.id).toBe('job_1');
    expect(calls.jobs).toEqual([]);
    loaders.clearAll();
    await loaders.teams.load(asTeamId('team_a'));
    await loaders.jobs.load(asJobId('job_1'));
    expect(calls.teams).toEqual([['team_a', 'team_b', 'team_gone'], ['team_a']]);
    expect(calls.jobs).toEqual([['job_1']]);
  });
});
