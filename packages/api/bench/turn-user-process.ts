/**
 * The user's side of the `turn-overhead` benchmark, in its own process (`fork`): the fake model
 * provider the server calls, and the client that sends requests and watches for their results,
 * as a user's browser and a remote provider would be, off the server's event loop.
 *
 * @remarks Times are `monotonicMs()` (the machine's monotonic clock, the same in every process),
 * so the server's stamps and these subtract directly.
 *
 * IPC: parent → `start` → `started { baseUrl }`; parent → `round { url, token, teams,
 * concurrency, count, warmup, label, perTeam, answer }` → `round-done { samples }`; parent →
 * `close` → `closed`.
 */
import { callModel } from '../src/runtimes/openai/chat-call.js';
import { ModelClients, type ModelEndpoint } from '../src/runtimes/openai/model-clients.js';
import type { OpenAiSettings } from '../src/runtimes/openai/openai-settings.js';
import { type LocalChatProvider, type ProviderTiming, startLocalChatProvider } from './harness/local-chat-provider.js';
import { openTurnClient } from './harness/turn-client.js';
import { FULL_ANSWER, INSTANT_ANSWER, MODEL, type RoundAnswer } from './harness/turn-stack.js';
import { monotonicMs } from './live-clock.js';

/** One team the round may use: its id and the two members requests alternate between. */
interface RoundTeam {
  readonly teamId: string;
  readonly memberIds: readonly string[];
}

interface Round {
  readonly type: 'round';
  readonly url: string;
  readonly token: string;
  /** `concurrency` equal slices, one per worker. */
  readonly teams: readonly RoundTeam[];
  readonly concurrency: number;
  readonly count: number;
  readonly warmup: number;
  readonly label: string;
  /** Requests per team (the team limit is 100). */
  readonly perTeam: number;
  /** What the provider answers in this round (the turns' calls and the direct ones alike). */
  readonly answer: RoundAnswer;
}

/** One counted sample: a turn and the direct call made next to it (all `monotonicMs`). */
export interface TurnSample {
  readonly jobId: string;
  readonly called: number;
  readonly accepted: number;
  readonly seen: number;
  readonly direct: number;
  readonly provider: Omit<ProviderTiming, 'lastUser'> | null;
}

let provider: LocalChatProvider | null = null;
let endpoint: ModelEndpoint | null = null;
const byText = new Map<string, ProviderTiming>();
/** What the provider answers now: the running round's answer (one round runs at a time). */
let answer = INSTANT_ANSWER;

/**
 * One direct call: the model call the runtime makes (`callModel`, streaming with usage, over its
 * own connection pool), the answer read to its end, without anything of the server around it.
 */
async function direct(text: string): Promise<void> {
  if (endpoint === null) throw new Error('[agent-teams/bench] not started');
  const answered = await callModel({
    endpoint,
    body: {
      model: MODEL,
      messages: [
        { role: 'system', content: 'You are a member of a team.' },
        { role: 'user', content: text },
      ],
    },
    stream: true,
    keepMessages: false,
    signal: NEVER,
    deadlineMs: Date.now() + 60_000,
    nowMs: Date.now,
    retryBaseMs: 100,
    sleep: async () => false,
    progress: { text: () => undefined, tool: () => undefined },
    idPrefix: 'direct',
  });
  if (answered.content !== answer)
    throw new Error(`[agent-teams/bench] direct call answered "${answered.content?.slice(0, 40)}…"`);
}

/** The direct calls are never cancelled. */
const NEVER = new AbortController().signal;

/** The provider's timing of the turn whose request carried `key` (the runtime's call, not a direct one). */
function providerTiming(key: string): ProviderTiming | null {
  for (const [text, timing] of byText) {
    if (!text.includes(key) || text.startsWith('direct ')) continue;
    byText.delete(text);
    return timing;
  }
  return null;
}

async function round(job: Round): Promise<TurnSample[]> {
  answer = job.answer === 'full' ? FULL_ANSWER : INSTANT_ANSWER;
  const turnClient = openTurnClient(
    job.url,
    job.token,
    job.teams.map((team) => team.teamId),
  );
  await turnClient.ready;
  const samples: TurnSample[] = [];
  const perWorker = job.teams.length / job.concurrency;
  const worker = async (w: number) => {
    const teams = job.teams.slice(w * perWorker, (w + 1) * perWorker);
    for (let i = 0; i < job.warmup + job.count; i += 1) {
      const team = teams[Math.floor(i / job.perTeam)];
      const memberId = team?.memberIds[i % 2];
      if (!team || !memberId) throw new Error('[agent-teams/bench] not enough teams');
      const key = `[${job.label}-${w}-${i}]`;
      const turn = async () => {
        const called = monotonicMs();
        const jobId = await turnClient.send(
          team.teamId,
          memberId,
          `Answer sample ${key}`,
          `turn-${job.label}-${w}-${i}`,
        );
        const accepted = monotonicMs();
        const seen = await turnClient.seen(jobId, 'COMPLETED');
        return { jobId, called, accepted, seen };
      };
      const timedDirect = async () => {
        const started = monotonicMs();
        await direct(`direct ${key}`);
        return monotonicMs() - started;
      };
      // Which goes first alternates, so drift in load hits both alike.
      let t: Awaited<ReturnType<typeof turn>>;
      let d: number;
      if (i % 2 === 0) {
        t = await turn();
        d = await timedDirect();
      } else {
        d = await timedDirect();
        t = await turn();
      }
      const timing = providerTiming(key);
      if (i < job.warmup) continue;
      samples.push({
        ...t,
        direct: d,
        provider:
          timing === null
            ? null
            : { receivedAt: timing.receivedAt, answeredAt: timing.answeredAt, bytes: timing.bytes },
      });
    }
  };
  try {
    await Promise.all(Array.from({ length: job.concurrency }, (_, w) => worker(w)));
  } finally {
    turnClient.close();
    byText.clear();
  }
  return samples;
}

process.on('message', (message: { type: string }) => {
  const reply = (answer: object) => process.send?.(answer);
  const fail = (error: unknown) => reply({ type: 'failed', error: String(error) });
  if (message.type === 'start') {
    startLocalChatProvider(() => answer, monotonicMs)
      .then((started) => {
        provider = started;
        started.onAnswered = (timing) => byText.set(timing.lastUser, timing);
        endpoint = new ModelClients({}).endpoint({ baseUrl: started.baseUrl, apiKeyEnv: null } as OpenAiSettings);
        reply({ type: 'started', baseUrl: started.baseUrl });
      })
      .catch(fail);
  } else if (message.type === 'round') {
    round(message as Round)
      .then((samples) => reply({ type: 'round-done', samples }))
      .catch(fail);
  } else if (message.type === 'close') {
    void (provider?.close() ?? Promise.resolve()).finally(() => {
      reply({ type: 'closed' });
      process.disconnect();
    });
  }
});
