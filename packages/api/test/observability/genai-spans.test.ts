import { JobPhase } from '@agent-teams/core';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, sendRequest } from '../graphql/fixtures.js';
import { createGraphqlStack } from '../graphql/graphql-stack.js';
import { openTeamHarness, waitFor } from '../openai/openai-team-harness.js';
import { loopbackOrError } from '../support/chat-provider-server.js';

// Spans go to an in-memory exporter registered as the global provider, as `startTracing`
// registers the OTLP one; this file's worker has no other tracer.
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const msw = setupServer();
beforeAll(() => {
  trace.setGlobalTracerProvider(provider);
  msw.listen({ onUnhandledRequest: loopbackOrError });
});
afterAll(async () => {
  msw.close();
  await provider.shutdown();
  trace.disable();
});

const spansNamed = (prefix: string) => exporter.getFinishedSpans().filter((span) => span.name.startsWith(prefix));

describe('GenAI spans', () => {
  it('traces a scripted turn as invoke_agent with its member tool call as a child execute_tool', async () => {
    exporter.reset();
    const stack = await createGraphqlStack();
    try {
      const team = await createTeam(stack);
      const ada = team.members[0];
      const [jobId] = await sendRequest(stack, team.id, [ada?.id ?? ''], '!tool read_team_context {}');
      await stack.waitForJob(jobId ?? '', ['COMPLETED']);
      await waitFor(async () => spansNamed('invoke_agent').length === 1 || null, 'the invoke_agent span');
    } finally {
      await stack.close();
    }
    const [invoke] = spansNamed('invoke_agent');
    const [tool] = spansNamed('execute_tool');
    expect(invoke?.name).toBe('invoke_agent researcher');
    expect(invoke?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'researcher',
      'gen_ai.provider.name': 'scripted',
      'agent_teams.outcome': 'completed',
    });
    expect(invoke?.attributes['gen_ai.conversation.id']).toEqual(expect.any(String));
    expect(tool?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read_team_context',
    });
    expect(tool?.parentSpanContext?.spanId).toBe(invoke?.spanContext().spanId);
    expect(tool?.spanContext().traceId).toBe(invoke?.spanContext().traceId);
  });

  it('traces each model call of an openai turn as a chat span with model and token usage', async () => {
    exporter.reset();
    const h = await openTeamHarness();
    let turn = { teamId: '', jobId: '' };
    try {
      h.provider.respondWith(() => ({
        kind: 'answer',
        content: 'Done.',
        usage: { prompt_tokens: 12, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 8 } },
      }));
      const { team, reviewer } = await h.team();
      const job = await h.send(team, reviewer, 'Check it');
      turn = { teamId: team.id, jobId: job.id };
      await waitFor(async () => ((await h.job(job.id)).phase === JobPhase.COMPLETED ? true : null), 'the turn');
      await waitFor(async () => spansNamed('chat').length === 1 || null, 'the chat span');
    } finally {
      await h.close();
      msw.resetHandlers();
    }
    const [chat] = spansNamed('chat');
    expect(chat?.name).toBe('chat model-review');
    expect(chat?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'model-review',
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.cache_read.input_tokens': 8,
      'gen_ai.usage.output_tokens': 3,
      // The turn it belongs to, as on the turn's invoke_agent span: a failing call names its job.
      'agent_teams.team.id': turn.teamId,
      'agent_teams.job.id': turn.jobId,
    });
    const [invoke] = spansNamed('invoke_agent');
    expect(chat?.attributes['gen_ai.conversation.id']).toBe(invoke?.attributes['gen_ai.conversation.id']);
  });
});
