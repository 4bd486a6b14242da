// The msw subpath of @agent-teams/testkit: a fake OpenAI-compatible provider in the real wire format.

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
