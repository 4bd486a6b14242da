import { render, screen, waitFor } from '@solidjs/testing-library';
import { describe, expect, it } from 'vitest';
import { offerConversation } from './element.js';
import { ELEMENT_NAME, mount } from './index.js';
import { ActivityCard } from './ui/activity-card.js';
import { member, request, withTeam } from './ui/test-team.js';

const endpoint = 'http://widget.test/graphql';

describe('mount and the element', () => {
  it('defines only the element and leaves nothing behind on dispose', async () => {
    expect(customElements.get(ELEMENT_NAME)).toBeDefined();
    const host = document.createElement('section');
    document.body.append(host);
    const handle = mount(host, { endpoint, token: 't', locale: 'zh' });
    const container = host.firstElementChild as HTMLElement;
    // The Chinese strings come from their own chunk; nothing is shown in English meanwhile.
    expect(container.shadowRoot?.textContent).not.toContain('A shared space');
    await waitFor(() => expect(container.shadowRoot?.textContent).toContain('让你的 Agent'));
    expect(container.shadowRoot?.querySelector('style')).not.toBeNull();
    expect(document.head.querySelectorAll('style')).toHaveLength(0);
    handle.update({ theme: 'dark' });
    expect(container.shadowRoot?.querySelector('.root')?.getAttribute('data-theme')).toBe('dark');
    handle.update({ locale: 'en' });
    await waitFor(() => expect(container.shadowRoot?.textContent).toContain('A shared space'));
    expect(container.shadowRoot?.querySelector('.root')?.getAttribute('lang')).toBe('en');
    handle.dispose();
    expect(host.childNodes).toHaveLength(0);
    host.remove();
  });

  it('complains with the package name when misused', () => {
    expect(() => mount(null as unknown as Element, { endpoint: '/graphql' })).toThrow(/agent-teams\/widget/);
  });

  it('offers a conversation to the host: the property or a cancelled event takes it, else the widget shows it', () => {
    const el = document.createElement('div');
    const events: unknown[] = [];
    el.addEventListener('open-conversation', (event) => events.push((event as CustomEvent).detail));
    expect(offerConversation(el, undefined, 'c1', 'Research')).toBe(false);
    expect(events).toEqual([{ conversationId: 'c1', memberName: 'Research' }]);
    const calls: string[] = [];
    expect(offerConversation(el, (id) => void calls.push(id), 'c2', 'Review')).toBe(true);
    expect(offerConversation(el, () => false, 'c3', 'Review')).toBe(false);
    expect(calls).toEqual(['c2']);
    el.addEventListener('open-conversation', (event) => event.preventDefault());
    expect(offerConversation(el, () => false, 'c4', 'Review')).toBe(true);
    expect(events).toHaveLength(4);
  });
});

describe('ActivityCard', () => {
  it('shows agent text as text, the handoff route, follow-up note and receipt', () => {
    const review = member('m1', 'Review');
    const job = request('j1', review, {
      text: '<img src=x onerror="alert(1)">',
      requester: { member: { id: 'm2', name: 'Research' } },
      parent: { id: 'j0', text: 'Original task' },
      result: { text: '<b>bold</b>' },
    });
    const receipt = { id: 'r1', status: 'COMPLETED', error: null, input: null, usage: job.usage };
    const { view } = withTeam(() => <ActivityCard job={job} receipt={receipt} scrollBox={() => undefined} />);
    const { container } = render(view);
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
    expect(screen.getByText('<img src=x onerror="alert(1)">')).toBeTruthy();
    expect(screen.getByText('Research → @Review')).toBeTruthy();
    expect(screen.getByText(/Follow-up to:\s+Original task/)).toBeTruthy();
    expect(screen.getByText('Returned to Research')).toBeTruthy();
  });
});
