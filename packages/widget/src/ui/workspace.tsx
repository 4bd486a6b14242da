import { createMemo, createSignal, For, Show } from 'solid-js';
import { DELETE_TEAM, errorCode, RECONNECT_TEAM, SEND_REQUEST, TEAM_QUERY } from '../api.js';
import { createTeamFeed, type JobView } from '../team-feed.js';
import { ActivityCard } from './activity-card.js';
import { Composer, type MemberOption } from './composer.js';
import { useWidget } from './context.js';

interface TeamData {
  id: string;
  name: string;
  goal: string;
  status: string;
  members: (MemberOption & { status: string; conversationId: string })[];
}

/** One team: header with the Manage menu, members, the live activity feed and the composer. */
export function Workspace(props: { teamId: string; onDeleted: () => void }) {
  const { api, t, setStatus, openConversation } = useWidget();
  const report = (error: unknown) => setStatus(t().error(errorCode(error)));
  // A failed read keeps what is shown and reports in the status line (a new read replaces it).
  const [team, setTeam] = createSignal<TeamData | null>(null);
  const loadTeam = () =>
    api.query<{ team: TeamData | null }>(TEAM_QUERY, { id: props.teamId }).then((data) => setTeam(data.team), report);
  void loadTeam();
  const feed = createTeamFeed(api, props.teamId, () => props.onDeleted());
  const [recipients, setRecipients] = createSignal<string[]>([]);
  let menu: HTMLDetailsElement | undefined;
  const closeMenu = () => menu?.removeAttribute('open');
  const [confirming, setConfirming] = createSignal(false);
  const members = () => team()?.members ?? [];
  const memberStatus = (id: string, fallback: string) => feed.memberStatus(id) ?? fallback;
  const waiting = createMemo(() => feed.order().filter((id) => feed.request(id)?.status === 'WAITING_INPUT').length);
  let feedEl: HTMLElement | undefined;

  const addRecipient = (id: string) => setRecipients((ids) => (ids.includes(id) ? ids : [...ids, id]));

  const send = async (memberIds: string[], text: string, clientRequestId: string) => {
    const input = { teamId: props.teamId, memberIds, text, clientRequestId };
    await api.mutate<{ sendRequest: { jobs: { id: string }[] } }>(SEND_REQUEST, { input });
    if (feed.live() !== 'live') void feed.refresh().catch(() => {});
  };

  const remove = async () => {
    setStatus('');
    try {
      await api.mutate(DELETE_TEAM, { input: { teamId: props.teamId } });
      feed.stop();
      props.onDeleted();
    } catch (error) {
      report(error);
    } finally {
      setConfirming(false);
    }
  };

  return (
    <Show when={team()} fallback={<p class="muted">…</p>}>
      {(data) => (
        <section class="workspace" aria-labelledby="at-team-name">
          <div class="head">
            <div style={{ 'min-width': '0' }}>
              <h2 id="at-team-name">{data().name}</h2>
              <p class="goal">{data().goal}</p>
            </div>
            <details class="menu" ref={menu}>
              <summary>{t().manage}</summary>
              <div>
                <button
                  type="button"
                  onClick={async () => {
                    setStatus('');
                    closeMenu();
                    try {
                      await api.mutate(RECONNECT_TEAM, { input: { teamId: props.teamId } });
                    } catch (error) {
                      report(error);
                    }
                    feed.reconnect();
                    void feed.refresh().catch(report);
                  }}
                >
                  {t().reconnect}
                </button>
                <button
                  type="button"
                  onClick={() => {
                    setStatus('');
                    closeMenu();
                    void loadTeam();
                    void feed.refresh().catch(report);
                  }}
                >
                  {t().refresh}
                </button>
                <button type="button" class="danger" onClick={() => setConfirming(true)}>
                  {t().deleteTeam}
                </button>
              </div>
            </details>
          </div>
          <Show when={confirming()}>
            <div class="dialog" role="alertdialog" aria-labelledby="at-confirm">
              <p id="at-confirm">{t().confirmDelete}</p>
              <div class="row">
                <button type="button" class="danger" onClick={remove}>
                  {t().confirm}
                </button>
                <button
                  type="button"
                  onClick={() => setConfirming(false)}
                  ref={(el) => queueMicrotask(() => el.focus())}
                >
                  {t().cancel}
                </button>
              </div>
            </div>
          </Show>
          <div class="ws">
            <div>
              <p class="eyebrow">{t().members}</p>
              <ul class="members">
                <For each={data().members}>
                  {(member) => (
                    <li>
                      <button
                        type="button"
                        class="mention"
                        aria-label={t().mention(member.name)}
                        onClick={() => addRecipient(member.id)}
                      >
                        <span
                          class={`dot ${memberStatus(member.id, member.status)}`}
                          role="img"
                          aria-label={
                            t().status[memberStatus(member.id, member.status)] ?? memberStatus(member.id, member.status)
                          }
                        />
                        {member.name}
                      </button>
                      <button
                        type="button"
                        aria-label={t().openConversation(member.name)}
                        onClick={() => openConversation(member.conversationId, member.name)}
                      >
                        ↗
                      </button>
                    </li>
                  )}
                </For>
              </ul>
              <p class="muted" aria-live="polite">
                {t().inbox(waiting())}
              </p>
            </div>
            <div style={{ 'min-width': '0' }}>
              <p class="liveline" role="status">
                {feed.live() === 'polling' ? t().polling : feed.live() === 'live' ? t().live : '…'}
              </p>
              <section class="feed" aria-label={t().activity} ref={feedEl}>
                <For each={feed.order()} fallback={<p class="muted">{t().emptyFeed}</p>}>
                  {(id) => (
                    <ActivityCard
                      job={feed.request(id) as JobView}
                      receipt={feed.receipt(id)}
                      onChange={() => feed.live() !== 'live' && void feed.refresh().catch(() => {})}
                      scrollBox={() => feedEl}
                    />
                  )}
                </For>
              </section>
              <Composer members={members()} recipients={recipients()} setRecipients={setRecipients} send={send} />
            </div>
          </div>
        </section>
      )}
    </Show>
  );
}
