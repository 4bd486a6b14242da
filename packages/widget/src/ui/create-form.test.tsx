import { fireEvent, render, screen, waitFor } from '@solidjs/testing-library';
import { graphql, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CreateForm } from './create-form.js';
import { TEST_ENDPOINT, withContext } from './test-context.js';

const api = graphql.link(TEST_ENDPOINT);
const agents = [
  { id: 'researcher', name: 'researcher', title: 'Research', description: 'Find and check source evidence' },
  { id: 'reviewer', name: 'reviewer', title: 'Review', description: 'Independent quality review' },
  { id: 'writer', name: 'writer', title: 'Research', description: 'Write clear reports' },
];
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

describe('CreateForm', () => {
  it('shows a catalog error without inventing agents, then loads on retry', async () => {
    let calls = 0;
    server.use(
      api.query('Agents', () => {
        calls++;
        if (calls === 1)
          return HttpResponse.json({ errors: [{ message: 'x', extensions: { code: 'CATALOG_UNAVAILABLE' } }] });
        return HttpResponse.json({ data: { agents: { edges: agents.map((node) => ({ node })) } } });
      }),
    );
    const { view } = withContext(() => <CreateForm onCreated={() => {}} />);
    render(view);
    await screen.findByRole('alert');
    expect(screen.queryAllByRole('checkbox')).toHaveLength(0);
    expect((screen.getByRole('button', { name: 'Create team' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Reload agents' }));
    await waitFor(() => expect(screen.getAllByRole('checkbox')).toHaveLength(3));
  });

  it('validates before sending, keeps the draft and reuses the create key on a retry', async () => {
    const inputs: Record<string, unknown>[] = [];
    server.use(
      api.query('Agents', () => HttpResponse.json({ data: { agents: { edges: agents.map((node) => ({ node })) } } })),
      api.mutation('Create', ({ variables }) => {
        inputs.push(variables.input);
        if (inputs.length === 1) return HttpResponse.error();
        return HttpResponse.json({ data: { createTeam: { team: { id: 't1', name: 'n' } } } });
      }),
    );
    const created: string[] = [];
    const { view, status } = withContext(() => <CreateForm onCreated={(id) => created.push(id)} />);
    render(view);
    const boxes = await screen.findAllByRole('checkbox');
    fireEvent.click(boxes[0] as HTMLElement);
    expect((screen.getByRole('button', { name: 'Create team' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(boxes[2] as HTMLElement);
    expect(screen.getByText('2 / 8 selected · at least 2')).toBeTruthy();
    const name = screen.getByLabelText('Team name') as HTMLInputElement;
    fireEvent.input(name, { target: { value: '中'.repeat(54) } });
    fireEvent.input(screen.getByLabelText('Shared goal'), { target: { value: 'Goal' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create team' }));
    expect(status.at(-1)).toBe('Team name must be at most 80 characters and 160 UTF-8 bytes.');
    expect(name.value).toBe('中'.repeat(54));
    expect(inputs).toHaveLength(0);

    fireEvent.input(name, { target: { value: 'Team' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create team' }));
    await waitFor(() => expect(inputs).toHaveLength(1));
    await waitFor(() => expect(status.at(-1)).toBe('Request failed (NETWORK).'));
    fireEvent.click(screen.getByRole('button', { name: 'Create team' }));
    await waitFor(() => expect(created).toEqual(['t1']));
    expect(inputs[1]?.clientRequestId).toBe(inputs[0]?.clientRequestId);
    expect(inputs[1]?.members).toEqual([
      { name: 'Research', agentId: 'researcher' },
      { name: 'Research (2)', agentId: 'writer' },
    ]);
  });
});
