// The msw subpath of @agent-teams/testkit: a fake OpenAI-compatible provider in the real wire
// format, and msw handlers answering the widget's GraphQL operations from an in-memory fake.

export type { AgentTeamsHandlersOptions } from './agent-teams-handlers.js';
export { agentTeamsHandlers } from './agent-teams-handlers.js';
export type { FakeCompletion, FakeToolCall, FakeUsage } from './chat-wire-format.js';
export { completionChunks, completionJson, errorJson } from './chat-wire-format.js';
export type {
  ChatRequestBody,
  FakeReply,
  FakeResponder,
  HttpPostFactory,
  RecordedChatRequest,
} from './fake-chat-provider.js';
export { chatCompletionHandler, FakeChatProvider } from './fake-chat-provider.js';
export { GRAPHQL_WS_PROTOCOL, LiveClose } from './live-handler.js';
export { fakeTasks } from './task-board-fake.js';
export type {
  FakeEvent,
  FakeEventInput,
  FakeEventListener,
  FakeJob,
  FakeMember,
  FakeTeam,
  WidgetFake,
  WidgetFakeOptions,
} from './widget-fake.js';
export { createWidgetFake } from './widget-fake.js';
