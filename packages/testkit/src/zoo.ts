import {
  asAgentId,
  asOwnerId,
  asRunId,
  type IdGenerator,
  InputKind,
  type Job,
  type JobCommand,
  JobPhase,
  type Member,
  type OwnerId,
  type Team,
  TeamStatus,
  type TeamStore,
  type TurnInput,
  transition,
} from '@agent-teams/core';

/** The phases the zoo holds: every phase of the job machine (each one some command reaches). */
export type ZooPhase = JobPhase;

/** One job in every phase, in one READY team (graphile-worker's `makeSelectionOfJobs`). */
export interface JobZoo {
  readonly team: Team;
  readonly members: readonly Member[];
  /** The job in each phase, as stored after its last step. */
  readonly jobs: Readonly<Record<ZooPhase, Job>>;
}

/**
 * Where each phase's job runs: every conversation-owning phase gets its own member (the database
 * allows one admitted job per conversation), and the QUEUED job heads an otherwise idle one, so
 * it is the zoo's only admission candidate. FAILED and CANCELLED share a finished conversation.
 */
const MEMBER_OF: Readonly<Record<ZooPhase, number>> = {
  QUEUED: 0,
  ADMITTING: 1,
  RUNNING: 2,
  RESUMING: 3,
  CANCELLING: 4,
  WAITING_INPUT: 5,
  ANSWERED: 8,
  WAITING_CHANGE: 9,
  COMPLETED: 6,
  FAILED: 7,
  CANCELLED: 7,
};

/** The commands that drive a fresh QUEUED job into each phase (QUEUED needs none). */
function pathTo(phase: ZooPhase, job: Job, input: TurnInput): JobCommand[] {
  const freeze: JobCommand = { type: 'FREEZE', input, runKey: job.id };
  const running: JobCommand[] = [freeze, { type: 'ACKNOWLEDGE', runId: asRunId(`run_${job.id}`) }];
  const ask: JobCommand = {
    type: 'ASK_INPUT',
    input: { kind: InputKind.CLARIFICATION, requestId: `question_${job.id}`, question: 'Which region?' },
  };
  const respond: JobCommand = {
    type: 'RESPOND',
    response: {
      runKey: `${job.id}:answer`,
      inputRequestId: `question_${job.id}`,
      kind: InputKind.CLARIFICATION,
      value: 'EU',
      clientRequestId: `answer_${job.id}`,
    },
  };
  switch (phase) {
    case JobPhase.QUEUED:
      return [];
    case JobPhase.ADMITTING:
      return [freeze];
    case JobPhase.RUNNING:
      return running;
    case JobPhase.WAITING_INPUT:
      return [...running, ask];
    case JobPhase.ANSWERED:
      return [...running, ask, respond];
    case JobPhase.RESUMING:
      return [...running, ask, respond, { type: 'RESUME' }];
    case JobPhase.CANCELLING:
      return [...running, { type: 'CANCEL' }];
    case JobPhase.COMPLETED:
      return [...running, { type: 'COMPLETE', answer: 'done' }];
    case JobPhase.FAILED:
      return [...running, { type: 'FAIL', error: 'boom' }];
    case JobPhase.CANCELLED:
      return [{ type: 'CANCEL' }];
    case JobPhase.WAITING_CHANGE:
      // A wait nothing ends during a test: a seq far ahead and a deadline far away, so the
      // waiting job is never an admission candidate and proves the bulk queries leave it alone.
      return [...running, { type: 'AWAIT_CHANGE', wait: zooWait(job) }];
  }
}

/** The wait of the zoo's WAITING_CHANGE job. */
function zooWait(job: Job) {
  return {
    requestId: `wait_${job.id}`,
    afterSeq: 1_000_000_000,
    timeoutMs: 3_600_000,
    deadline: '2999-01-01T00:00:00.000Z',
  };
}

/**
 * Builds a {@link JobZoo} through the store's own methods: a team of ten members made READY,
 * eleven requests from a person, each driven by `store.updateJob` with the core's `transition`.
 *
 * @remarks Bulk queries (active count, admission candidates, the inbox, delete) run beside the
 * zoo prove they leave every other phase alone.
 */
export async function makeJobZoo(
  store: TeamStore,
  opts: { readonly ids: IdGenerator; readonly now: string; readonly owner?: OwnerId },
): Promise<JobZoo> {
  const { ids, now } = opts;
  const owner = opts.owner ?? asOwnerId('zoo-keeper');
  // Ten members (more than a team may have through the core) so every owning phase has its own.
  const members = Array.from({ length: 10 }, (_, index) => ({
    id: ids.memberId(),
    name: `Zoo ${index}`,
    agentId: asAgentId('researcher'),
    conversationId: ids.conversationId(),
  }));
  const teamId = ids.teamId();
  const created = await store.createTeam(
    {
      id: teamId,
      owner,
      clientRequestId: `zoo-${teamId}`,
      fingerprint: 'zoo',
      name: 'Zoo',
      goal: 'One job per phase',
      members,
    },
    { now, maxTeams: Number.MAX_SAFE_INTEGER },
  );
  const team = await store.setTeamStatus(created.team.id, TeamStatus.READY, now);
  const phases = Object.keys(MEMBER_OF) as ZooPhase[];
  const requests = phases.map((phase) => {
    const member = members[MEMBER_OF[phase]] as (typeof members)[number];
    const id = ids.jobId();
    return { phase, member, id, clientKey: `zoo-${phase}` };
  });
  await store.enqueueRequests({
    owner,
    teamId: team.id,
    keys: requests.map((r) => ({ requesterConversationId: null, clientKey: r.clientKey, memberId: r.member.id })),
    roots: requests.map((r) => r.id),
    now,
    decide: () => ({
      insert: requests.map((r) => ({
        id: r.id,
        recordId: ids.recordId(),
        memberId: r.member.id,
        conversationId: r.member.conversationId,
        requester: { memberId: null, conversationId: null },
        parentId: null,
        rootId: r.id,
        clientKey: r.clientKey,
        text: `A task that ends ${r.phase}`,
      })),
      resultIds: requests.map((r) => r.id),
    }),
  });
  const jobs = {} as Record<ZooPhase, Job>;
  for (const { phase, member, id } of requests) {
    let job = (await store.findJob(owner, id)) as Job;
    const input: TurnInput = {
      kind: 'request',
      jobId: job.id,
      teamId: team.id,
      text: job.text,
      memberName: member.name,
      requesterName: null,
      receipt: null,
      context: {},
    };
    for (const command of pathTo(phase, job, input)) {
      job = (await store.updateJob(job.id, (current) => transition(current, command, { now, ids }), { now })).job;
    }
    jobs[phase] = job;
  }
  const stored = await store.findTeam(owner, team.id);
  return { team: stored ?? team, members: await store.listMembers([team.id]), jobs };
}
