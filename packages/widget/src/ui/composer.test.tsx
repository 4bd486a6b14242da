import { cleanup, fireEvent, render, screen, waitFor } from '@solidjs/testing-library';
import { createSignal } from 'solid-js';
import { describe, expect, it, vi } from 'vitest';
import { Composer, type MemberOption } from './composer.js';
import { withContext } from './test-context.js';

const members: MemberOption[] = [
  { id: 'm1', name: 'Research', agent: { title: 'Research', name: 'researcher' } },
  { id: 'm2', name: 'Review', agent: { title: 'Review', name: 'reviewer' } },
];

type Sent = { ids: string[]; text: string; key: string };

let teams = 0;

/** A composer of a team of its own, unless `teamId` names one shown before (drafts are kept by team). */
function setup(send: (sent: Sent) => Promise<void> = async () => {}, teamId = `t${++teams}`) {
  const sent: Sent[] = [];
  const [recipients, setRecipients] = createSignal<string[]>([]);
  const { view, status } = withContext(() => (
    <Composer
      teamId={teamId}
      members={members}
      recipients={recipients()}
      setRecipients={setRecipients}
      send={async (ids, text, key) => {
        sent.push({ ids, text, key });
        await send({ ids, text, key });
      }}
    />
  ));
  render(view);
  const box = screen.getByLabelText('Message to team') as HTMLTextAreaElement;
  const type = (value: string) => {
    box.value = value;
    box.setSelectionRange(value.length, value.length);
    fireEvent.input(box);
  };
  const key = (init: KeyboardEventInit) => fireEvent.keyDown(box, init);
  return { sent, status, box, type, key, recipients };
}

describe('Composer', () => {
  it('opens the picker on @, moves with the arrows and selects with Enter', () => {
    const { type, key, box, recipients } = setup();
    type('Please @Re');
    const options = screen.getAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(['@Research', '@Review']);
    key({ key: 'ArrowDown' });
    expect(screen.getByRole('option', { name: '@Review' }).getAttribute('aria-selected')).toBe('true');
    key({ key: 'ArrowDown' });
    expect(screen.getByRole('option', { name: '@Research' }).getAttribute('aria-selected')).toBe('true');
    key({ key: 'Enter' });
    expect(recipients()).toEqual(['m1']);
    expect(box.value).toBe('Please ');
    expect(screen.queryByRole('listbox')).toBeNull();
    screen.getByRole('button', { name: 'Remove recipient Research' });
  });

  it('closes the picker with Escape and pauses it during IME composition', () => {
    const { type, key, box } = setup();
    type('@R');
    key({ key: 'Escape' });
    expect(screen.queryByRole('listbox')).toBeNull();
    fireEvent.compositionStart(box);
    type('@Re');
    expect(screen.queryByRole('listbox')).toBeNull();
    fireEvent.compositionEnd(box);
    expect(screen.queryByRole('listbox')).not.toBeNull();
  });

  it('does not route by plain names, sends with Ctrl+Enter only and broadcasts with @all', async () => {
    const { type, key, sent, box } = setup();
    type('Research, check this');
    key({ key: 'Enter', ctrlKey: true });
    expect(sent).toHaveLength(0);
    expect(screen.getByRole('listbox')).toBeTruthy();
    key({ key: 'Escape' });
    type('@all');
    key({ key: 'Enter' });
    type('Status');
    key({ key: 'Enter' });
    expect(sent).toHaveLength(0);
    key({ key: 'Enter', metaKey: true });
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toMatchObject({ ids: ['m1', 'm2'], text: 'Status' });
    await waitFor(() => expect(box.value).toBe(''));
  });

  it('keeps the draft and reuses the request key after a failed send', async () => {
    let fail = true;
    const { type, key, sent, status, box } = setup(async () => {
      if (fail) {
        fail = false;
        throw new Error('offline');
      }
    });
    type('@Rev');
    key({ key: 'Enter' });
    type('研'.repeat(2667));
    key({ key: 'Enter', ctrlKey: true });
    expect(status.at(-1)).toBe('Task must be at most 4000 characters and 8000 UTF-8 bytes.');
    expect(sent).toHaveLength(0);
    type('Check it');
    key({ key: 'Enter', ctrlKey: true });
    await waitFor(() => expect(status.at(-1)).toBe('Request failed (NETWORK).'));
    expect(box.value).toBe('Check it');
    key({ key: 'Enter', ctrlKey: true });
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[1]?.key).toBe(sent[0]?.key);
    await waitFor(() => expect(box.value).toBe(''));
  });

  it('gives back the draft and its recipients when the team is shown again, and not to another team', () => {
    const first = setup(undefined, 'kept');
    first.type('@Rev');
    first.key({ key: 'Enter' });
    first.type('Half a sentence مرحبا 😀');
    cleanup();
    const other = setup();
    expect(other.box.value).toBe('');
    expect(other.recipients()).toEqual([]);
    cleanup();
    const again = setup(undefined, 'kept');
    expect(again.box.value).toBe('Half a sentence مرحبا 😀');
    expect(again.recipients()).toEqual(['m2']);
    screen.getByRole('button', { name: 'Remove recipient Review' });
  });

  it('does not give back a draft whose send succeeded after the team was left', async () => {
    let finish = () => {};
    const first = setup(() => new Promise<void>((resolve) => (finish = resolve)), 'left');
    first.type('@Res');
    first.key({ key: 'Enter' });
    first.type('Sent while away');
    first.key({ key: 'Enter', ctrlKey: true });
    await waitFor(() => expect(first.sent).toHaveLength(1));
    cleanup();
    finish();
    // The answer arrives after the composer is gone; each try shows the team anew (polled, as
    // testing-library's waitFor would rerun on the very DOM changes the try makes).
    await vi.waitFor(() => {
      cleanup();
      const again = setup(undefined, 'left');
      expect(again.box.value).toBe('');
      expect(again.recipients()).toEqual([]);
    });
  });
});
