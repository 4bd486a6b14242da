import type { OwnerId } from '../model/ids.js';

/** One owner's admission rule (`admission.owners.<owner>` in the configuration file). */
export interface OwnerAdmission {
  /** At most this many of the owner's jobs hold a slot at once; null: only the global rules. */
  readonly maxActive: number | null;
  /** The owner's share in a backlog: admitted `weight` times per round (1–100). */
  readonly weight: number;
}

/**
 * How slots are shared: the database-wide cap, the slots kept for other owners, and per-owner
 * caps and weights (`admission` in the configuration file; contract `budgets.md`).
 */
export interface AdmissionPolicy {
  /** Slots per database (`admission.activeJobs`). */
  readonly activeJobs: number;
  /** One owner never holds more than `activeJobs − reservedForOthers` slots; 0 turns it off. */
  readonly reservedForOthers: number;
  /** Owners without an entry of their own (`admission.owners.default`). */
  readonly defaultOwner: OwnerAdmission;
  /** Named owners' rules. */
  readonly owners: ReadonlyMap<string, OwnerAdmission>;
}

/** The bounds of the admission settings; the configuration is refused outside them. */
export const AdmissionLimits = {
  activeJobs: { min: 1, max: 1_000, default: 8 },
  /** At most `activeJobs − 1`: an owner always keeps at least one slot. */
  reservedForOthers: { min: 0, default: 2 },
  weight: { min: 1, max: 100, default: 1 },
  maxActive: { min: 1, max: 1_000 },
} as const;

/** An owner with no rule of its own: weight 1, no cap of its own. */
export const DEFAULT_OWNER_ADMISSION: OwnerAdmission = { maxActive: null, weight: AdmissionLimits.weight.default };

/** The policy of a server without an `admission` setting: 8 slots, 2 of them kept for others. */
export const DEFAULT_ADMISSION_POLICY: AdmissionPolicy = {
  activeJobs: AdmissionLimits.activeJobs.default,
  reservedForOthers: AdmissionLimits.reservedForOthers.default,
  defaultOwner: DEFAULT_OWNER_ADMISSION,
  owners: new Map(),
};

/**
 * The plain round-robin of earlier versions: every owner weight 1, no per-owner cap, nothing
 * reserved (what {@link import('./plan-admissions.js').planAdmissions} does without a policy).
 */
export const UNRESTRICTED_ADMISSION_POLICY: AdmissionPolicy = { ...DEFAULT_ADMISSION_POLICY, reservedForOthers: 0 };

/** The rule that applies to `owner`. */
export function ownerAdmission(policy: AdmissionPolicy, owner: OwnerId): OwnerAdmission {
  return policy.owners.get(owner) ?? policy.defaultOwner;
}

/**
 * The most slots `owner` may hold when the database has `capacity` slots: its own `maxActive`,
 * and `capacity − reservedForOthers` when slots are reserved (never below 1).
 */
export function ownerCap(policy: AdmissionPolicy, owner: OwnerId, capacity: number): number {
  const own = ownerAdmission(policy, owner).maxActive ?? Number.POSITIVE_INFINITY;
  const shared = policy.reservedForOthers > 0 ? Math.max(1, capacity - policy.reservedForOthers) : capacity;
  return Math.min(own, shared);
}
