import {
  AdmissionLimits,
  type AdmissionPolicy,
  DEFAULT_ADMISSION_POLICY,
  type OwnerAdmission,
} from '@agent-teams/core';
import { ConfigError } from './agent-teams-config.js';

/** The settings of one owner under `admission.owners`. */
const OWNER_KEYS = new Set(['maxActive', 'weight']);
const ADMISSION_KEYS = new Set(['activeJobs', 'reservedForOthers', 'owners']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Refuses any key of `raw` outside `known`, naming the path. */
export function refuseUnknownKeys(
  raw: Record<string, unknown>,
  known: ReadonlySet<string>,
  path: string,
  source: string,
): void {
  for (const key of Object.keys(raw)) {
    if (!known.has(key))
      throw new ConfigError(`${source}: ${path}.${key} is not a setting (known: ${[...known].join(', ')})`);
  }
}

/** An object at `path`, or a ConfigError saying what was expected. */
export function requireObject(raw: unknown, path: string, shape: string, source: string): Record<string, unknown> {
  if (!isRecord(raw)) throw new ConfigError(`${source}: ${path} must be an object ${shape}`);
  return raw;
}

/** A whole number within `min..max` at `path`, or `fallback` when absent; null allowed when `nullable`. */
export function wholeNumber<N extends null | number>(
  value: unknown,
  path: string,
  range: { readonly min: number; readonly max: number },
  fallback: N,
  source: string,
): number | N {
  if (value === undefined) return fallback;
  if (value === null && fallback === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < range.min || value > range.max) {
    const nullable = fallback === null ? ' or null' : '';
    throw new ConfigError(`${source}: ${path} must be an integer from ${range.min} to ${range.max}${nullable}`);
  }
  return value;
}

function parseOwner(raw: unknown, path: string, base: OwnerAdmission, source: string): OwnerAdmission {
  const owner = requireObject(raw, path, '{ "maxActive": n | null, "weight": n }', source);
  refuseUnknownKeys(owner, OWNER_KEYS, path, source);
  return {
    maxActive:
      owner.maxActive === undefined
        ? base.maxActive
        : wholeNumber(owner.maxActive, `${path}.maxActive`, AdmissionLimits.maxActive, null, source),
    weight: wholeNumber(owner.weight, `${path}.weight`, AdmissionLimits.weight, base.weight, source),
  };
}

/**
 * Validates `admission` (contract `budgets.md`): `activeJobs` (1–1,000, default 8),
 * `reservedForOthers` (0 to activeJobs − 1, default 2) and `owners.<owner>` rules `{ maxActive,
 * weight }`, where `default` applies to every owner without its own entry (and fills the keys an
 * owner's entry leaves out).
 * @throws ConfigError naming the JSON path at fault.
 */
export function parseAdmission(raw: unknown, source: string): AdmissionPolicy {
  const admission = requireObject(raw, 'admission', '{ "activeJobs", "reservedForOthers", "owners" }', source);
  refuseUnknownKeys(admission, ADMISSION_KEYS, 'admission', source);
  const limits = AdmissionLimits;
  const activeJobs = wholeNumber(
    admission.activeJobs,
    'admission.activeJobs',
    limits.activeJobs,
    limits.activeJobs.default,
    source,
  );
  const reservedForOthers = wholeNumber(
    admission.reservedForOthers,
    'admission.reservedForOthers',
    { min: limits.reservedForOthers.min, max: activeJobs - 1 },
    Math.min(limits.reservedForOthers.default, activeJobs - 1),
    source,
  );
  const owners = new Map<string, OwnerAdmission>();
  let defaultOwner = DEFAULT_ADMISSION_POLICY.defaultOwner;
  if (admission.owners !== undefined) {
    const entries = requireObject(
      admission.owners,
      'admission.owners',
      '{ "<owner>": { "maxActive", "weight" } }',
      source,
    );
    if (entries.default !== undefined)
      defaultOwner = parseOwner(entries.default, 'admission.owners.default', defaultOwner, source);
    for (const [owner, rule] of Object.entries(entries)) {
      if (owner === 'default') continue;
      if (owner.trim() === '') throw new ConfigError(`${source}: admission.owners has a blank owner id`);
      owners.set(owner, parseOwner(rule, `admission.owners.${owner}`, defaultOwner, source));
    }
  }
  return { activeJobs, reservedForOthers, defaultOwner, owners };
}
