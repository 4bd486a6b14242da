import { fireEvent, render, screen } from '@solidjs/testing-library';
import { describe, expect, it } from 'vitest';
import { MemberList } from './member-list.js';
import { member, NO_USAGE, request, withTeam } from './test-team.js';

const research = member('m1', 'Research');
const review = member('m2', 'Review', 'RUNNING');
const retired = member('m3', 'Old hand', 'RETIRED');

function setup(locale = 'en') {
  const mentioned: string[] = [];
  const team = withTeam(() => <MemberList onMention={(id) => mentioned.push(id)} />, {
    locale,
    members: [research, review, retired],
    usage: {
      team: { inputTokens: 1000, cachedInputTokens: 0, outputTokens: 234, cost: 0.0021, calls: 2 },
      members: {
        m1: { inputTokens: 1000, cachedInputTokens: 0, outputTokens: 234, cost: 0.0021, calls: 2 },
        m2: NO_USAGE,
      },
    },
  });
  render(team.view);
  return { ...team, mentioned };
}

describe('MemberList', () => {
  it("names each member's state for screen readers, live, retired included", () => {
    const { setMemberStatus } = setup();
    expect(screen.getAllByRole('img').map((dot) => dot.getAttribute('aria-label'))).toEqual([
      'Research: Idle',
      'Review: Running',
      'Old hand: Retired',
    ]);
    setMemberStatus('m1', 'WAITING_INPUT');
    expect(screen.getByRole('img', { name: 'Research: Waiting for you' })).toBeTruthy();
  });

  it('mentions and offers each conversation by name; no mention for the retired or in a closed team', () => {
    const { mentioned, opened, feed } = setup();
    fireEvent.click(screen.getByRole('button', { name: 'Mention Review' }));
    fireEvent.click(screen.getByRole('button', { name: 'Open Research conversation' }));
    expect(mentioned).toEqual(['m2']);
    expect(opened.map((o) => [o.member.id, o.opener?.getAttribute('aria-label')])).toEqual([
      ['m1', 'Open Research conversation'],
    ]);
    const mention = (name: string) => screen.getByRole('button', { name: `Mention ${name}` }) as HTMLButtonElement;
    expect(mention('Old hand').disabled).toBe(true);
    expect(mention('Research').disabled).toBe(false);
    feed.setTeamStatus('CLOSED');
    expect(mention('Research').disabled).toBe(true);
    // A closed team's record stays readable.
    const open = screen.getByRole('button', { name: 'Open Research conversation' }) as HTMLButtonElement;
    expect(open.disabled).toBe(false);
  });

  it('counts questions waiting on requests and on receipts', () => {
    const { put } = setup();
    expect(screen.getByText('0 waiting for you')).toBeTruthy();
    put(request('j1', research, { status: 'WAITING_INPUT' }));
    put(request('j2', review), { id: 'r2', status: 'WAITING_INPUT', error: null, input: null, usage: NO_USAGE });
    put(request('j3', review, { status: 'RUNNING' }));
    expect(screen.getByText('2 waiting for you')).toBeTruthy();
  });

  it('shows each role and marks the lead in text and for screen readers, in Chinese too', () => {
    const lead = { ...member('m4', 'Chief', 'RUNNING'), role: 'Plans the work', isLead: true };
    const coder = { ...member('m5', 'Coder'), role: 'Writes code' };
    for (const locale of ['en', 'zh']) {
      const team = withTeam(() => <MemberList onMention={() => {}} />, { locale, members: [lead, coder] });
      const { unmount } = render(team.view);
      expect(screen.getByText('Plans the work')).toBeTruthy();
      expect(screen.getByText('Writes code')).toBeTruthy();
      if (locale === 'en') {
        expect(screen.getByText('Lead')).toBeTruthy();
        expect(screen.getByRole('img', { name: 'Chief (lead): Running' })).toBeTruthy();
        const mention = screen.getByRole('button', { name: 'Mention Chief (lead)' });
        // The role is the button's description (and tooltip, since a long role is cut in the roster).
        expect(mention.getAttribute('title')).toBe('Plans the work');
        expect(screen.getByRole('img', { name: 'Coder: Idle' })).toBeTruthy();
      } else {
        expect(screen.getByText('负责人')).toBeTruthy();
        expect(screen.getByRole('img', { name: 'Chief（负责人）：运行中' })).toBeTruthy();
      }
      unmount();
    }
  });

  it('shows a member paused in wait_for_change as waiting for a change, live', () => {
    const { setWaiting } = setup();
    expect(screen.getByRole('img', { name: 'Review: Running' })).toBeTruthy();
    setWaiting('m2', 'job-9');
    const dot = screen.getByRole('img', { name: 'Review: Waiting for a change' });
    expect(dot.className).toBe('dot WAITING_CHANGE');
    setWaiting('m2', '');
    expect(screen.getByRole('img', { name: 'Review: Running' })).toBeTruthy();
  });
});
