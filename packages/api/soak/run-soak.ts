import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { replaceSection } from '../chaos/doc-sections.js';
import { prng } from '../test/support/seeded-random.js';
import { newFigures, OwnerClient, ownerWorkload, type SoakTeam } from './soak-load.js';
import { type Sample, soakSection } from './soak-report.js';
import { OwnerSubscribers, type SubscriberFigures } from './soak-subscribers.js';

/**
 * `pnpm soak`: mixed load against a real server process for `AGENT_TEAMS_SOAK_MINUTES` (30):
 * 10 owners creating, using and deleting teams (requests with replies, sleeps, streams,
 * questions, interrupts, handoffs and failures; answers; cancels; reads), 500 live `teamEvents`
 * subscriptions on 100 sockets checked for gaps, and 5 sockets closed and reopened every 2 s.
 * The server's memory is sampled after a full GC every `AGENT_TEAMS_SOAK_SAMPLE_SECONDS` (10);
 * errors (goal 0) and the growth after warm-up (goal ≤ 10 %) go to `docs/reliability.md`.
 * Not part of CI.
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const minutes = Number(process.env.AGENT_TEAMS_SOAK_MINUTES ?? 30);
const sampleMs = Number(process.env.AGENT_TEAMS_SOAK_SAMPLE_SECONDS ?? 10) * 1000;
const OWNERS = 10;
const SOCKETS_PER_OWNER = 10;
const SUBSCRIPTIONS_PER_SOCKET = 5;
const seed = Number(process.env.AGENT_TEAMS_SOAK_SEED ?? Date.now() % 1_000_000);

const dir = mkdtempSync(join(tmpdir(), 'agent-teams-soak-'));
const tokens = Array.from({ length: OWNERS }, (_, i) => `tok-soak-${i}`);
const config = join(dir, 'config.json');
writeFileSync(
  config,
  JSON.stringify({
    auth: { tokens: Object.fromEntries(tokens.map((token, i) => [token, `owner-${i}`])) },
    agents: ['researcher', 'reviewer', 'writer'].map((name) => ({ name, title: name, runtime: 'scripted' })),
  }),
);

const child: ChildProcess = fork(
  fileURLToPath(new URL('./soak-server.ts', import.meta.url)),
  ['--port', '0', '--database', join(dir, 'soak.sqlite'), '--config', config],
  {
    execArgv: ['--conditions=@agent-teams/source', '--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  },
);
const url = await new Promise<string>((resolve, reject) => {
  child.once('exit', (code) => reject(new Error(`the soak server exited with ${code}`)));
  child.on('message', (message: { type: string; url?: string }) => {
    if (message.type === 'listening' && message.url) resolve(message.url);
  });
});
const sample = (): Promise<{ rss: number; heapUsed: number; errors: number }> =>
  new Promise((resolve) => {
    const onMessage = (message: { type: string; rss: number; heapUsed: number; errors: number }) => {
      if (message.type !== 'sample') return;
      child.off('message', onMessage);
      resolve(message);
    };
    child.on('message', onMessage);
    child.send({ type: 'sample' });
  });

console.log(`[soak] ${minutes} min against ${url}, seed ${seed}`);
const started = Date.now();
const endAt = started + minutes * 60_000;
const figures = newFigures();
const seen: SubscriberFigures = { events: 0, reconnects: 0, resubscribes: 0 };
const random = prng(seed);
const owners = tokens.map((token) => ({ client: new OwnerClient(url, token, figures), teams: [] as SoakTeam[] }));
const workloads = owners.map(({ client, teams }, i) =>
  ownerWorkload(client, teams, prng(seed + i + 1), () => Date.now() >= endAt),
);
// Subscribers start once every owner has its first teams.
while (owners.some((owner) => owner.teams.length < 3)) await new Promise((resolve) => setTimeout(resolve, 50));
const wsUrl = `${url.replace('http', 'ws')}/graphql`;
const subscribers = owners.map(({ client, teams }) => {
  const group = new OwnerSubscribers(wsUrl, client.token, teams, figures, seen);
  group.open(SOCKETS_PER_OWNER, SUBSCRIPTIONS_PER_SOCKET);
  return group;
});
const churn = setInterval(() => {
  for (let i = 0; i < 5; i++) {
    const group = subscribers[Math.floor(random() * subscribers.length)] as OwnerSubscribers;
    group.churn(Math.floor(random() * group.sockets));
  }
}, 2_000);

const samples: Sample[] = [];
while (Date.now() < endAt) {
  await new Promise((resolve) => setTimeout(resolve, Math.min(sampleMs, Math.max(0, endAt - Date.now()))));
  const memory = await sample();
  samples.push({ atMs: Date.now() - started, ...memory, operations: figures.operations, events: seen.events });
  console.log(
    `[soak] ${((Date.now() - started) / 60_000).toFixed(1)} min: rss ${(memory.rss / 2 ** 20).toFixed(0)} MiB, ` +
      `heap ${(memory.heapUsed / 2 ** 20).toFixed(1)} MiB, ${figures.operations} operations, ` +
      `${seen.events} events, ${figures.errors} load errors, ${memory.errors} server errors`,
  );
}
clearInterval(churn);
await Promise.all(workloads);
for (const group of subscribers) group.close();
const last = await sample();
child.send({ type: 'stop' });
await new Promise((resolve) => child.once('exit', resolve));
rmSync(dir, { recursive: true, force: true });

const docFile = join(root, 'docs/reliability.md');
const section = soakSection({
  started: new Date(started),
  minutes,
  seed,
  cpus: cpus().length,
  load: loadavg(),
  figures,
  seen,
  samples,
  serverErrors: last.errors,
  subscriptions: OWNERS * SOCKETS_PER_OWNER * SUBSCRIPTIONS_PER_SOCKET,
});
writeFileSync(docFile, replaceSection(readFileSync(docFile, 'utf8'), 'soak', section));
const ok = figures.errors === 0 && last.errors === 0;
console.log(`[soak] done: ${figures.errors} load errors, ${last.errors} server errors; figures in docs/reliability.md`);
process.exit(ok ? 0 : 1);
