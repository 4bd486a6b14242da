import { fireEvent, render, screen, waitFor, within } from '@solidjs/testing-library';
import { describe, expect, it } from 'vitest';
import { TeamHeader } from './team-header.js';
import { TeamStateBanner } from './team-state-banner.js';
import { withTeam } from './test-team.js';

/** The banner's buttons (the Manage menu has a Reconnect too, inside its closed details). */
const banner = () => within(document.querySelector('.banner') ?? document.createElement('div'));

function setup(status: string, locale = 'en') {
  let reconnects = 0;
  const team = withTeam(
    () => (
      <>
        <TeamHeader onDeleted={() => {}} onRefresh={() => {}} />
        <TeamStateBanner />
      </>
    ),
    {
      status,
      locale,
      reconnect: async () => {
        reconnects++;
        team.feed.setTeamStatus('READY');
      },
    },
  );
  render(team.view);
  return { ...team, reconnects: () => reconnects };
}

describe('the team state', () => {
  it('is always shown, in a status line that announces changes', () => {
    const { feed } = setup('READY');
    expect(screen.getByRole('status').textContent).toBe('Team status: Ready');
    expect(document.querySelector('.banner')).toBeNull();
    feed.setTeamStatus('CREATING');
    expect(screen.getByRole('status').textContent).toBe('Team status: Setting up');
    expect(screen.getByText(/Setting up the members' conversations/)).toBeTruthy();
  });

  it('offers Reconnect right in the banner of a disconnected team, which goes away once ready', async () => {
    const { reconnects } = setup('DISCONNECTED');
    expect(screen.getByRole('status').textContent).toBe('Team status: Disconnected');
    expect(screen.getByText(/An agent lost access to its model provider/)).toBeTruthy();
    fireEvent.click(banner().getByRole('button', { name: 'Reconnect' }));
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Team status: Ready'));
    expect(reconnects()).toBe(1);
    expect(screen.queryByText(/An agent lost access/)).toBeNull();
  });

  it('says a closed team takes no new work, in Chinese too', () => {
    setup('CLOSED', 'zh');
    expect(screen.getByRole('status').textContent).toBe('团队状态： 已关闭');
    expect(screen.getByText('该团队已关闭：记录仍可查看，但不再接受新工作。')).toBeTruthy();
    expect(banner().queryByRole('button')).toBeNull();
  });
});
