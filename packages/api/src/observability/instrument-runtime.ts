import type { AgentRuntime, RunContext, RunId, RunState } from '@agent-teams/core';
import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ServerMetrics } from './metrics.js';

/** The tracer every span of the server comes from; a no-op until a provider is registered. */
export const tracer = () => trace.getTracer('agent-teams');

/** GenAI semantic-convention attributes of the turn `ctx` runs. */
export function agentAttributes(runtime: string, ctx: RunContext): Record<string, string> {
  return {
    'gen_ai.provider.name': runtime,
    'gen_ai.agent.id': ctx.agent.id,
    'gen_ai.agent.name': ctx.agent.name,
    'gen_ai.conversation.id': ctx.conversationId,
    'agent_teams.team.id': ctx.teamId,
    'agent_teams.job.id': ctx.jobId,
  };
}

/** A runtime the application runs, with its optional `dispose` (the app's `AppRuntime`). */
type DisposableRuntime = AgentRuntime & { dispose?(): void | Promise<void> };

interface OpenTurn {
  readonly startedMs: number;
  readonly span: Span;
  readonly runKey: string;
}

/**
 * Wraps a runtime so each turn is counted (admissions), timed (turn durations) and traced: an
 * `invoke_agent` span from `start`/`resume` to the poll that sees its end, with an
 * `execute_tool` child span per member tool call (OpenTelemetry GenAI conventions).
 *
 * @remarks A turn is known to this server from the call that started it; a turn another server
 * started and this one finishes after a failover is not timed here (its `start` ran there).
 */
export function instrumentRuntime<R extends DisposableRuntime>(
  runtime: R,
  metrics: ServerMetrics,
  nowMs: () => number,
): DisposableRuntime {
  const open = new Map<RunId, OpenTurn>();
  /** The open turn of each run key this server started or resumed. */
  const byKey = new Map<string, RunId>();
  const labels = { runtime: runtime.name };
  const begin = async (
    kind: 'start' | 'resume',
    runKey: string,
    ctx: RunContext,
    call: (ctx: RunContext) => Promise<{ runId: RunId }>,
  ) => {
    // The same call again (the scheduler's step after the acknowledgement grace, a retry): the
    // runtime answers the run it has; the turn keeps its first span, count and start time.
    const known = byKey.get(runKey);
    if (known !== undefined && open.has(known)) return call(ctx);
    const span = tracer().startSpan(`invoke_agent ${ctx.agent.name}`, {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'agent_teams.turn': kind,
        ...agentAttributes(runtime.name, ctx),
      },
    });
    try {
      const result = await call(withToolSpans(runtime.name, ctx, span));
      metrics.admissions.inc(labels);
      open.set(result.runId, { startedMs: nowMs(), span, runKey });
      byKey.set(runKey, result.runId);
      return result;
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      span.end();
      throw error;
    }
  };
  const settle = (runId: RunId, state: RunState) => {
    const turn = open.get(runId);
    if (!turn || state.state === 'running') return;
    open.delete(runId);
    byKey.delete(turn.runKey);
    // Not a literal that begins with a spread (see `UNADMITTED` in the core): one per turn.
    metrics.turnSeconds.observe(Object.assign({}, labels, { outcome: state.state }), (nowMs() - turn.startedMs) / 1000);
    if (state.state === 'failed') turn.span.setStatus({ code: SpanStatusCode.ERROR, message: state.error });
    turn.span.setAttribute('agent_teams.outcome', state.state);
    turn.span.end();
  };
  const wrapped: DisposableRuntime = {
    name: runtime.name,
    ensureConversation: (args) => runtime.ensureConversation(args),
    start: (args) => begin('start', args.runKey, args.context, (ctx) => runtime.start({ ...args, context: ctx })),
    resume: (args) => begin('resume', args.runKey, args.context, (ctx) => runtime.resume({ ...args, context: ctx })),
    poll: async (args) => {
      const state = await runtime.poll(args);
      settle(args.runId, state);
      return state;
    },
    ...(runtime.persist === undefined ? {} : { persist: (args) => runtime.persist?.(args) ?? Promise.resolve() }),
    cancel: (args) => runtime.cancel(args),
    subscribe: (listener) => runtime.subscribe(listener),
    dispose: async () => {
      for (const turn of open.values()) turn.span.end();
      open.clear();
      byKey.clear();
      await runtime.dispose?.();
    },
  };
  return wrapped;
}

/** The run context with its member tools traced as `execute_tool` spans under the turn's span. */
function withToolSpans(runtime: string, ctx: RunContext, parent: Span): RunContext {
  const parentContext = trace.setSpan(context.active(), parent);
  return {
    ...ctx,
    tools: {
      ...ctx.tools,
      invoke: async (name, args) => {
        const span = tracer().startSpan(
          `execute_tool ${name}`,
          {
            kind: SpanKind.INTERNAL,
            attributes: {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': name,
              ...agentAttributes(runtime, ctx),
            },
          },
          parentContext,
        );
        try {
          return await ctx.tools.invoke(name, args);
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
          throw error;
        } finally {
          span.end();
        }
      },
    },
  };
}
