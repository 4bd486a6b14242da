import { AdmissionLimits, DEFAULT_ADMISSION_POLICY } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './agent-teams-config.js';
import { parseAdmission } from './parse-admission.js';
import { parseConfig } from './parse-config.js';

const parse = (admission: unknown) => parseAdmission(admission, 'c.json');

describe('parseAdmission', () => {
  it('reads the contract example, with default filling what an owner leaves out', () => {
    const policy = parse({
      activeJobs: 8,
      reservedForOthers: 2,
      owners: { default: { maxActive: null, weight: 1 }, alice: { maxActive: 2, weight: 2 }, bob: { weight: 3 } },
    });
    expect(policy).toMatchObject({ activeJobs: 8, reservedForOthers: 2, defaultOwner: { maxActive: null, weight: 1 } });
    expect(policy.owners.get('alice')).toEqual({ maxActive: 2, weight: 2 });
    expect(policy.owners.get('bob')).toEqual({ maxActive: null, weight: 3 });
  });

  it('defaults to 8 slots with 2 kept for others, and reserves at most activeJobs − 1', () => {
    expect(parse({})).toEqual(DEFAULT_ADMISSION_POLICY);
    expect(parse({ activeJobs: 1 }).reservedForOthers).toBe(0);
    expect(parse({ activeJobs: 2 }).reservedForOthers).toBe(1);
  });

  it('accepts activeJobs at its bounds and refuses one past them', () => {
    const { min, max } = AdmissionLimits.activeJobs;
    expect(parse({ activeJobs: min }).activeJobs).toBe(min);
    expect(parse({ activeJobs: max }).activeJobs).toBe(max);
    expect(parse({ activeJobs: max - 1 }).activeJobs).toBe(max - 1);
    expect(() => parse({ activeJobs: min - 1 })).toThrow(/admission\.activeJobs must be an integer from 1 to 1000/);
    expect(() => parse({ activeJobs: max + 1 })).toThrow(ConfigError);
    expect(() => parse({ activeJobs: 2.5 })).toThrow(ConfigError);
    expect(() => parse({ activeJobs: '8' })).toThrow(ConfigError);
  });

  it('refuses reservedForOthers that would leave an owner no slot, and accepts 0 (off)', () => {
    expect(parse({ activeJobs: 8, reservedForOthers: 0 }).reservedForOthers).toBe(0);
    expect(parse({ activeJobs: 8, reservedForOthers: 7 }).reservedForOthers).toBe(7);
    expect(() => parse({ activeJobs: 8, reservedForOthers: 8 })).toThrow(
      /reservedForOthers must be an integer from 0 to 7/,
    );
    expect(() => parse({ reservedForOthers: -1 })).toThrow(ConfigError);
  });

  it('checks weight (1–100) and maxActive (1–1000 or null) at and past their bounds', () => {
    const owner = (rule: unknown) => parse({ owners: { alice: rule } }).owners.get('alice');
    expect(owner({ weight: 1 })?.weight).toBe(1);
    expect(owner({ weight: 99 })?.weight).toBe(99);
    expect(owner({ weight: 100 })?.weight).toBe(100);
    expect(() => owner({ weight: 0 })).toThrow(/admission\.owners\.alice\.weight must be an integer from 1 to 100/);
    expect(() => owner({ weight: 101 })).toThrow(ConfigError);
    expect(owner({ maxActive: null })?.maxActive).toBeNull();
    expect(owner({ maxActive: 1 })?.maxActive).toBe(1);
    expect(owner({ maxActive: 1000 })?.maxActive).toBe(1000);
    expect(() => owner({ maxActive: 0 })).toThrow(/maxActive must be an integer from 1 to 1000 or null/);
    expect(() => owner({ maxActive: 1001 })).toThrow(ConfigError);
  });

  it('names unknown keys and wrong shapes', () => {
    expect(() => parse({ slots: 3 })).toThrow(/admission\.slots is not a setting/);
    expect(() => parse({ owners: { alice: { cap: 1 } } })).toThrow(/admission\.owners\.alice\.cap is not a setting/);
    expect(() => parse([])).toThrow(/admission must be an object/);
    expect(() => parse({ owners: { alice: 3 } })).toThrow(/admission\.owners\.alice must be an object/);
  });

  it('is read from the configuration file', () => {
    const config = parseConfig({ agents: [{ name: 'a' }], admission: { activeJobs: 4 } }, 'c.json');
    expect(config.admission?.activeJobs).toBe(4);
    expect(parseConfig({ agents: [{ name: 'a' }] }, 'c.json').admission).toBeUndefined();
  });
});
