import { fireEvent, render, screen, waitFor } from '@solidjs/testing-library';
import { graphql, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { createSignal } from 'solid-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { InputView } from '../team-feed.js';
import { AnswerForm, createAnswerDraft } from './answer-form.js';
import { TEST_ENDPOINT } from './test-context.js';
import { withTeam } from './test-team.js';

type Sent = { jobId: string; response: unknown; inputRequestId: string; clientRequestId: string };
const sent: Sent[] = [];
let refuse: string | null = null;
const server = setupServer(
  graphql.link(TEST_ENDPOINT).mutation('Respond', ({ variables }) => {
    sent.push(variables.input as Sent);
    if (refuse) {
      const code = refuse;
      refuse = null;
      return HttpResponse.json({ errors: [{ message: 'no', extensions: { code } }] });
    }
    return HttpResponse.json({ data: { respond: { job: { id: 'j1', status: 'RESUMING' } } } });
  }),
);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  sent.length = 0;
  refuse = null;
});
afterAll(() => server.close());

const question = (requestId: string, text: string): InputView => ({
  kind: 'CLARIFICATION',
  requestId,
  question: text,
  payload: null,
});

function setup(locale = 'en') {
  const [input, setInput] = createSignal(question('q1', 'Which region?'));
  const draft = createAnswerDraft();
  const team = withTeam(() => <AnswerForm jobId="j1" input={input()} asker="Research" draft={draft} />, { locale });
  render(team.view);
  return { ...team, setInput, draft };
}

describe('AnswerForm', () => {
  it('is a group named for who asks, answered with Ctrl+Enter, sending the question id', async () => {
    const { changes } = setup();
    const group = screen.getByRole('group', { name: 'Research asks' });
    expect(group.textContent).toContain('Which region?');
    const box = screen.getByLabelText('Your answer');
    fireEvent.input(box, { target: { value: 'eu-west' } });
    fireEvent.keyDown(box, { key: 'Enter', ctrlKey: true });
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toMatchObject({ jobId: 'j1', response: 'eu-west', inputRequestId: 'q1' });
    await waitFor(() => expect((box as HTMLTextAreaElement).value).toBe(''));
    expect(changes()).toBe(1);
  });

  it('sends the id of the question the answer was begun for, explains INPUT_CHANGED and keeps the draft', async () => {
    const { setInput } = setup();
    const box = screen.getByLabelText('Your answer') as HTMLTextAreaElement;
    fireEvent.input(box, { target: { value: 'my answer' } });
    // The question is replaced while the person writes.
    setInput(question('q2', 'Which environment?'));
    expect(screen.getByRole('group').textContent).toContain('Which environment?');
    refuse = 'INPUT_CHANGED';
    fireEvent.click(screen.getByRole('button', { name: 'Submit response' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('The question changed after you started your answer.');
    expect(box.getAttribute('aria-describedby')).toBe(alert.id);
    expect(sent[0]?.inputRequestId).toBe('q1');
    expect(box.value).toBe('my answer');
    fireEvent.click(screen.getByRole('button', { name: 'Submit response' }));
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[1]?.inputRequestId).toBe('q2');
    // Another question and answer: another idempotency key.
    expect(sent[1]?.clientRequestId).not.toBe(sent[0]?.clientRequestId);
  });

  it('keeps the draft and its question in the draft object when the form goes away and comes back', async () => {
    const draft = createAnswerDraft();
    const [shown, setShown] = createSignal(true);
    const [input, setInput] = createSignal(question('q1', 'First?'));
    const team = withTeam(() =>
      shown() ? <AnswerForm jobId="j1" input={input()} asker="Lead" draft={draft} /> : null,
    );
    render(team.view);
    fireEvent.input(screen.getByLabelText('Your answer'), { target: { value: 'kept' } });
    setShown(false);
    setInput(question('q2', 'Second?'));
    setShown(true);
    expect((screen.getByLabelText('Your answer') as HTMLTextAreaElement).value).toBe('kept');
    fireEvent.click(screen.getByRole('button', { name: 'Submit response' }));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]?.inputRequestId).toBe('q1');
  });

  it('explains in Chinese when the question no longer waits', async () => {
    setup('zh');
    refuse = 'NOT_WAITING_INPUT';
    fireEvent.input(screen.getByLabelText('你的回答'), { target: { value: '好' } });
    fireEvent.click(screen.getByRole('button', { name: '提交回复' }));
    expect((await screen.findByRole('alert')).textContent).toBe('这个问题已不再等待回答。');
    expect(screen.getByRole('group', { name: 'Research 提问' })).toBeTruthy();
  });
});
