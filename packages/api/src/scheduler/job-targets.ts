import {
  type AgentCatalog,
  type AgentDefinition,
  type AgentRuntime,
  type Job,
  type Member,
  type MemberId,
  type MemberToolPort,
  memberAgent,
  type RunContext,
  type RuntimeRegistry,
  type TeamReads,
} from '@agent-teams/core';

/** Where a job runs: its agent, that agent's runtime and the run context; or why it cannot run. */
export type JobTarget =
  | { readonly ok: true; readonly agent: AgentDefinition; readonly runtime: AgentRuntime; readonly context: RunContext }
  | { readonly ok: false; readonly error: string };

/** What {@link JobTargets} reads. */
export interface JobTargetsDeps {
  readonly store: Pick<TeamReads, 'findMembers'>;
  readonly catalog: AgentCatalog;
  readonly runtimes: RuntimeRegistry;
  readonly tools: (job: Job) => MemberToolPort;
  /** Told about every runtime a job resolves to (the scheduler subscribes to it once). */
  readonly onRuntime: (runtime: AgentRuntime) => void;
}

/**
 * How many members {@link JobTargets} keeps (the ones that ran last): a long-running server sees
 * teams come and go, and every member it ever ran must not stay in memory (a few hundred bytes
 * each: about 2 MB at this bound).
 */
export const MEMBERS_KEPT = 10_000;

/**
 * Resolves a job to its member's agent and runtime.
 *
 * @remarks Members are cached: a team's roster is fixed, so a member never changes agent. The
 * cache keeps the {@link MEMBERS_KEPT} members used last; a member it let go is read again. The
 * catalog is asked every time, so an agent removed from the configuration is noticed; a catalog
 * that cannot be read throws (retried), it is never mistaken for a missing agent.
 */
export class JobTargets {
  readonly #deps: JobTargetsDeps;
  readonly #members = new Map<MemberId, Member>();

  constructor(deps: JobTargetsDeps) {
    this.#deps = deps;
  }

  /** The target of `job`, or a failure message a person can act on. */
  async resolve(job: Job): Promise<JobTarget> {
    if (job.memberId === null) return { ok: false, error: 'The job has no member conversation to run in.' };
    const member = await this.#member(job.memberId);
    const resolved = memberAgent(
      member,
      member ? await this.#deps.catalog.get(member.agentId) : null,
      this.#deps.runtimes,
    );
    if (!resolved.ok) return resolved;
    const { agent, runtime } = resolved;
    this.#deps.onRuntime(runtime);
    const context: RunContext = {
      teamId: job.teamId,
      memberId: job.memberId,
      jobId: job.id,
      conversationId: job.conversationId,
      agent,
      tools: this.#deps.tools(job),
    };
    return { ok: true, agent, runtime, context };
  }

  async #member(memberId: MemberId): Promise<Member | null> {
    const cached = this.#members.get(memberId);
    if (cached) {
      // Used now: to the end of the insertion order, so the members let go are the least used.
      this.#members.delete(memberId);
      this.#members.set(memberId, cached);
      return cached;
    }
    const [found] = await this.#deps.store.findMembers([memberId]);
    if (found) {
      this.#members.set(memberId, found);
      if (this.#members.size > MEMBERS_KEPT) this.#members.delete(this.#members.keys().next().value as MemberId);
    }
    return found ?? null;
  }

  /** Members kept now (tests). */
  get membersKept(): number {
    return this.#members.size;
  }
}
