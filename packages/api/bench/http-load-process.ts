/**
 * The client side of the `graphql-throughput` benchmark, in its own process (`fork`): keeps
 * `concurrency` POST requests in flight on keep-alive connections for `durationMs` (after
 * `warmupMs` not counted) and counts the answers that hold `data` and no `errors`.
 *
 * @remarks A separate process, so the load generator never runs on the server's event loop; the
 * server process's own CPU time is what the parent measures. Each request's body is the template
 * with `__N__` replaced by a counter and `__TARGET__` by the next target (rotating), so every
 * `sendRequest` has its own `clientRequestId` and teams are used in turn.
 *
 * IPC: parent → `{ type: 'run', url, tokens, template, targets, concurrency, warmupMs, durationMs }`;
 * child → `{ type: 'done', ok, failed, seconds, firstFailure, cpuMicros }`; parent → `close` →
 * `closed`.
 */

interface Run {
  readonly type: 'run';
  readonly url: string;
  /** One bearer token per target (same order). */
  readonly tokens: readonly string[];
  readonly template: string;
  /** JSON fragments substituted for `__TARGET__`, one per target. */
  readonly targets: readonly string[];
  readonly concurrency: number;
  readonly warmupMs: number;
  readonly durationMs: number;
}

async function run(job: Run): Promise<void> {
  let n = 0;
  let ok = 0;
  let failed = 0;
  let firstFailure: string | null = null;
  let counting = false;
  let stopping = false;
  const post = async () => {
    n += 1;
    const target = n % job.targets.length;
    const response = await fetch(job.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${job.tokens[target]}` },
      body: job.template.replaceAll('__N__', String(n)).replace('__TARGET__', job.targets[target] ?? ''),
    });
    const text = await response.text();
    const good = response.ok && text.includes('"data"') && !text.includes('"errors"');
    if (!counting) return;
    if (good) ok += 1;
    else {
      failed += 1;
      firstFailure ??= `${response.status} ${text.slice(0, 300)}`;
    }
  };
  const loop = async () => {
    while (!stopping) await post();
  };
  const loops = Array.from({ length: job.concurrency }, () => loop());
  await new Promise((resolve) => setTimeout(resolve, job.warmupMs));
  counting = true;
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, job.durationMs));
  counting = false;
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  stopping = true;
  await Promise.all(loops);
  process.send?.({ type: 'done', ok, failed, seconds, firstFailure, cpuMicros: cpu.user + cpu.system });
}

process.on('message', (message: { type: string }) => {
  if (message.type === 'run') {
    run(message as unknown as Run).catch((error: unknown) => process.send?.({ type: 'failed', error: String(error) }));
  } else if (message.type === 'close') {
    process.send?.({ type: 'closed' });
    setTimeout(() => process.exit(0), 20);
  }
});
