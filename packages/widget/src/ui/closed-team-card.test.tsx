import { render, screen } from '@solidjs/testing-library';
import { describe, expect, it } from 'vitest';
import { ActivityCard } from './activity-card.js';
import { member, NO_USAGE, request, withTeam } from './test-team.js';

// A closed team is read-only: a card keeps its question readable but takes no answer or cancel.
const research = member('m1', 'Research');
const asking = request('j1', research, {
  status: 'WAITING_INPUT',
  result: { text: null },
  input: { kind: 'CLARIFICATION', requestId: 'q1', question: 'Which region?', payload: null },
});

function setup(status: string) {
  const team = withTeam(() => <ActivityCard job={asking} receipt={undefined} scrollBox={() => undefined} />, {
    status,
    members: [research],
  });
  render(team.view);
  return team;
}

describe('ActivityCard in a closed team', () => {
  it('disables the answer box and hides Cancel, live when the team closes', () => {
    const { feed } = setup('READY');
    const box = () => screen.getByLabelText('Your answer') as HTMLTextAreaElement;
    expect(box().matches(':disabled')).toBe(false);
    expect(screen.getByRole('button', { name: 'Cancel task' })).toBeTruthy();
    feed.setTeamStatus('CLOSED');
    expect(screen.getByText('Which region?')).toBeTruthy();
    expect(box().matches(':disabled')).toBe(true);
    expect((screen.getByRole('button', { name: 'Submit response' }) as HTMLButtonElement).matches(':disabled')).toBe(
      true,
    );
    expect(screen.queryByRole('button', { name: 'Cancel task' })).toBeNull();
  });

  it('says when a receipt was stopped by a budget, not only a request', () => {
    const team = withTeam(
      () => (
        <ActivityCard
          job={request('j2', research)}
          receipt={{
            id: 'r2',
            status: 'FAILED',
            error: 'Owner x daily cost budget',
            errorCode: 'BUDGET_EXHAUSTED',
            input: null,
            usage: NO_USAGE,
          }}
          scrollBox={() => undefined}
        />
      ),
      { members: [research] },
    );
    render(team.view);
    expect(screen.getByText('Stopped: a spending budget is used up.')).toBeTruthy();
    expect(screen.getByText(/Owner x daily cost budget/)).toBeTruthy();
  });
});
