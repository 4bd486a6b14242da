import { render, screen } from '@solidjs/testing-library';
import { describe, expect, it } from 'vitest';
import { ELEMENT_NAME, mount } from './index.js';
import { ActivityCard } from './ui/activity-card.js';
import { withContext } from './ui/test-context.js';

const job = {
  id: 'j1',
  kind: 'REQUEST' as const,
  status: 'COMPLETED',
  text: '<img src=x onerror="alert(1)">',
  error: null,
  createdAt: '2026-11-30T04:00:00.000Z',
  conversationId: 'c1',
  member: { id: 'm1', name: 'Review', conversationId: 'c1' },
  requester: { member: { id: 'm2', name: 'Research' } },
  parent: { id: 'j0', text: 'Original task' },
  input: null,
  result: { text: '<b>bold</b>' },
};

describe('mount and the element', () => {
  it('defines only the element and leaves nothing behind on dispose', () => {
    expect(customElements.get(ELEMENT_NAME)).toBeDefined();
    const host = document.createElement('section');
    document.body.append(host);
    const handle = mount(host, { endpoint: 'http://widget.test/graphql', token: 't', locale: 'zh' });
    const container = host.firstElementChild as HTMLElement;
    expect(container.shadowRoot?.querySelector('style')).not.toBeNull();
    expect(container.shadowRoot?.textContent).toContain('让你的 Agent');
    expect(document.head.querySelectorAll('style')).toHaveLength(0);
    handle.update({ theme: 'dark' });
    expect(container.shadowRoot?.querySelector('.root')?.getAttribute('data-theme')).toBe('dark');
    handle.dispose();
    expect(host.childNodes).toHaveLength(0);
    host.remove();
  });

  it('complains with the package name when misused', () => {
    expect(() => mount(null as unknown as Element, { endpoint: '/graphql' })).toThrow(/agent-teams\/widget/);
  });
});

describe('ActivityCard', () => {
  it('shows agent text as text, the handoff route, follow-up note and receipt', () => {
    const receipt = { ...job, id: 'r1', kind: 'RECEIPT' as const, status: 'COMPLETED' };
    const { view } = withContext(() => (
      <ActivityCard job={job} receipt={receipt} onChange={() => {}} scrollBox={() => undefined} />
    ));
    const { container } = render(view);
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
    expect(screen.getByText('<img src=x onerror="alert(1)">')).toBeTruthy();
    expect(screen.getByText('Research → @Review')).toBeTruthy();
    expect(screen.getByText(/Follow-up to:\s+Original task/)).toBeTruthy();
    expect(screen.getByText('Returned to Research')).toBeTruthy();
  });
});
