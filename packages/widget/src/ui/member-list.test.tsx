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
      team: { inputTokens: 1000, outputTokens: 234, cost: 0.0021, calls: 2 },
      members: { m1: { inputTokens: 1000, outputTokens: 234, cost: 0.0021, calls: 2 }, m2: NO_USAGE },
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

  it('has a legend of every state, mentions and offers each conversation by name', () => {
    const { mentioned, opened } = setup();
    fireEvent.click(screen.getByText('Status legend'));
    const legend = screen.getByText('Status legend').closest('details') as HTMLElement;
    expect(legend.querySelectorAll('li')).toHaveLength(7);
    for (const label of ['Idle', 'Queued', 'Running', 'Waiting for you', 'Failed', 'Retired', 'Preparing']) {
      expect(legend.textContent).toContain(label);
    }
    fireEvent.click(screen.getByRole('button', { name: 'Mention Review' }));
    fireEvent.click(screen.getByRole('button', { name: 'Open Research conversation' }));
    expect(mentioned).toEqual(['m2']);
    expect(opened.map((o) => [o.member.id, o.opener?.getAttribute('aria-label')])).toEqual([
      ['m1', 'Open Research conversation'],
    ]);
  });

  it('counts questions waiting on requests and on receipts', () => {
    const { put } = setup();
    expect(screen.getByText('0 waiting for you')).toBeTruthy();
    put(request('j1', research, { status: 'WAITING_INPUT' }));
    put(request('j2', review), { id: 'r2', status: 'WAITING_INPUT', error: null, input: null, usage: NO_USAGE });
    put(request('j3', review, { status: 'RUNNING' }));
    expect(screen.getByText('2 waiting for you')).toBeTruthy();
  });

  it('shows the team usage and each member usage, in Chinese too', () => {
    setup('zh');
    const summary = screen.getByText(/用量与费用/);
    expect(summary.textContent).toBe('用量与费用: 1,234 tokens · 费用 0.0021');
    const details = summary.closest('details') as HTMLElement;
    expect(details.textContent).toContain('输入 1,000 · 输出 234 · 2 次模型调用');
    expect(details.textContent).toContain('Old hand—');
  });
});
