/** Codes a busy, racing workload meets by design; anything else counts as an error. */
const EXPECTED_CODES = new Set([
  'REQUEST_LIMIT',
  'NOT_WAITING_INPUT',
  'INPUT_CHANGED',
  'PENDING_WORK',
  'RATE_LIMITED',
  'NOT_FOUND',
]);

/** What the load saw, by kind. */
export interface LoadFigures {
  operations: number;
  requests: number;
  answers: number;
  cancels: number;
  teamsCreated: number;
  teamsDeleted: number;
  expectedRefusals: Record<string, number>;
  /** Unexpected answers: 5xx, masked errors, unknown codes, failed fetches (goal 0). */
  errors: number;
  errorSamples: string[];
}

export const newFigures = (): LoadFigures => ({
  operations: 0,
  requests: 0,
  answers: 0,
  cancels: 0,
  teamsCreated: 0,
  teamsDeleted: 0,
  expectedRefusals: {},
  errors: 0,
  errorSamples: [],
});

/** Records an unexpected outcome (with a few samples for the report). */
export function recordError(figures: LoadFigures, what: string): void {
  figures.errors += 1;
  if (figures.errorSamples.length < 10) figures.errorSamples.push(what.slice(0, 300));
}

interface Answer {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

/** One owner's HTTP client: every answer is classified into the figures. */
export class OwnerClient {
  constructor(
    readonly url: string,
    readonly token: string,
    readonly figures: LoadFigures,
  ) {}

  /** Runs an operation; the data, or null when it was refused (expected or not). */
  async gql(query: string, variables: Record<string, unknown> = {}): Promise<Record<string, unknown> | null> {
    this.figures.operations += 1;
    let status = 0;
    let body: Answer;
    try {
      const response = await fetch(`${this.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
        body: JSON.stringify({ query, variables }),
      });
      status = response.status;
      body = (await response.json()) as Answer;
    } catch (error) {
      recordError(this.figures, `fetch failed: ${String(error)}`);
      return null;
    }
    if (status >= 500) recordError(this.figures, `HTTP ${status}`);
    for (const error of body.errors ?? []) {
      const code = error.extensions?.code;
      if (code !== undefined && EXPECTED_CODES.has(code)) {
        this.figures.expectedRefusals[code] = (this.figures.expectedRefusals[code] ?? 0) + 1;
      } else {
        recordError(this.figures, `${code ?? 'no code'}: ${error.message}`);
      }
    }
    return body.errors?.length ? null : (body.data ?? null);
  }
}

/** A team of the soak with what the load knows of it. */
export interface SoakTeam {
  readonly id: string;
  readonly members: readonly { readonly id: string; readonly name: string }[];
  requests: number;
  readonly jobs: string[];
  /** Set once the load starts cancelling the team's work to delete it. */
  closing?: boolean;
}

const CREATE = `mutation($input: CreateTeamInput!) { createTeam(input: $input) { team { id members { id name } } } }`;
const SEND = `mutation($input: SendRequestInput!) { sendRequest(input: $input) { jobs { id } } }`;
const INBOX = `{ viewer { inbox(first: 20) { edges { node { id input { kind requestId } } } } } }`;
const RESPOND = `mutation($input: RespondInput!) { respond(input: $input) { job { id } } }`;
const CANCEL = `mutation($id: ID!) { cancelJob(input: { jobId: $id }) { job { id } } }`;
const DELETE = `mutation($id: ID!) { deleteTeam(input: { teamId: $id }) { deletedTeamId } }`;
const READ = `query($id: ID!) { team(id: $id) { id status revision jobs(first: 20) { totalCount edges { node {
  id status text result { text } } } } history(limit: 8) { records { text } } } }`;

/** Task texts: replies, sleeps, streams, questions, interrupts, handoffs and failures. */
function taskText(random: () => number, team: SoakTeam, member: string): string {
  const peer = team.members.find((m) => m.name !== member)?.name ?? member;
  const texts = [
    '!reply done',
    '!sleep 300\n!reply slept',
    '!stream 5',
    '!ask Which region?',
    '!interrupt {"approve": "deploy"}',
    `!handoff ${peer} !reply from a peer`,
    '!fail on purpose',
  ];
  return texts[Math.floor(random() * texts.length)] as string;
}

/** One owner working: teams, requests, answers, cancels, reads and team churn, until `until`. */
export async function ownerWorkload(
  client: OwnerClient,
  teams: SoakTeam[],
  random: () => number,
  until: () => boolean,
): Promise<void> {
  let counter = 0;
  const key = () => {
    counter += 1;
    return `${client.token}-${Date.now()}-${counter}`;
  };
  const createTeam = async () => {
    const data = await client.gql(CREATE, {
      input: {
        clientRequestId: key(),
        name: `Soak ${counter}`,
        goal: 'Stay up',
        members: [
          { name: 'Ada', agentId: 'researcher' },
          { name: 'Bo', agentId: 'reviewer' },
          { name: 'Cy', agentId: 'writer' },
        ],
      },
    });
    const team = (data?.createTeam as { team?: SoakTeam } | undefined)?.team;
    if (team) {
      teams.push({ ...team, requests: 0, jobs: [] });
      client.figures.teamsCreated += 1;
    }
  };
  while (teams.length < 3) await createTeam();
  while (!until()) {
    const roll = random();
    const team = teams[Math.floor(random() * teams.length)] as SoakTeam;
    if (roll < 0.35 && team.requests < 90) {
      const member = team.members[Math.floor(random() * team.members.length)];
      if (!member) continue;
      const input = {
        teamId: team.id,
        memberIds: [member.id],
        text: taskText(random, team, member.name),
        clientRequestId: key(),
      };
      const data = await client.gql(SEND, { input });
      team.requests += 1;
      const jobs = (data?.sendRequest as { jobs?: { id: string }[] } | undefined)?.jobs ?? [];
      for (const job of jobs) team.jobs.push(job.id);
      client.figures.requests += jobs.length;
    } else if (roll < 0.55) {
      const data = await client.gql(INBOX);
      const edges =
        (
          data?.viewer as {
            inbox?: { edges: { node: { id: string; input: { kind: string; requestId: string } | null } }[] };
          }
        )?.inbox?.edges ?? [];
      const job = edges[Math.floor(random() * edges.length)]?.node;
      if (!job?.input) continue;
      const response = job.input.kind === 'CLARIFICATION' ? 'EU only' : { approved: true };
      const input = { jobId: job.id, response, clientRequestId: key(), inputRequestId: job.input.requestId };
      if (await client.gql(RESPOND, { input })) client.figures.answers += 1;
    } else if (roll < 0.65 && team.jobs.length > 0) {
      const job = team.jobs[Math.floor(random() * team.jobs.length)] as string;
      if (await client.gql(CANCEL, { id: job })) client.figures.cancels += 1;
    } else if (roll < 0.9) {
      await client.gql(READ, { id: team.id });
    } else if (team.requests >= 90) {
      // A full team: cancel what is left, delete it once it is idle, and start a new one.
      team.closing = true;
      for (const job of team.jobs) await client.gql(CANCEL, { id: job });
      if (await client.gql(DELETE, { id: team.id })) {
        teams.splice(teams.indexOf(team), 1);
        client.figures.teamsDeleted += 1;
        await createTeam();
      }
    }
    await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 20)));
  }
}
