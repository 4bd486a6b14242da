import { createEffect, createMemo, createSignal, For, on, Show } from 'solid-js';
import { errorCode, RECONNECT_TEAM, SEND_REQUEST, TEAM_QUERY, USAGE_QUERY } from '../api.js';
import { createJobProgress } from '../job-progress.js';
import { createTeamFeed } from '../team-feed.js';
import { ActivityCard } from './activity-card.js';
import { Composer } from './composer.js';
import { useWidget } from './context.js';
import { createLazyView } from './lazy-view.js';
import { MemberList } from './member-list.js';
import { type MemberRef, TeamContext, type TeamData, type TeamMember, type UsageTotals } from './team-context.js';
import { TeamHeader } from './team-header.js';
import { TeamStateBanner } from './team-state-banner.js';

type UsageData = { team: { usage: UsageTotals['team']; members: { id: string; usage: UsageTotals['team'] }[] } | null };

const usageOf = (team: NonNullable<UsageData['team']>): UsageTotals => ({
  team: team.usage,
  members: Object.fromEntries(team.members.map((member) => [member.id, member.usage])),
});

/** One team: header and status, members, the live activity feed, the composer and conversations. */
export function Workspace(props: { teamId: string; onDeleted: () => void }) {
  const { api, t, setStatus, hostOpensConversation } = useWidget();
  const report = (error: unknown) => setStatus(t().common.error(errorCode(error)));
  // A failed read keeps what is shown and reports in the status line (a new read replaces it).
  const [team, setTeam] = createSignal<TeamData | null>(null);
  const [usage, setUsage] = createSignal<UsageTotals | null>(null);
  const loadTeam = () =>
    api.query<{ team: TeamData | null }>(TEAM_QUERY, { id: props.teamId }).then((data) => {
      setTeam(data.team);
      if (data.team) setUsage(usageOf(data.team));
    }, report);
  void loadTeam();
  const loadUsage = () =>
    api.query<UsageData>(USAGE_QUERY, { id: props.teamId }).then((data) => {
      if (data.team) setUsage(usageOf(data.team));
    }, report);
  // A member the roster does not know (spawned, live or while polling): read the team again.
  const feed = createTeamFeed(
    api,
    props.teamId,
    () => props.onDeleted(),
    (ids) => ids.some((id) => !team()?.members.some((m) => m.id === id)) && loadTeam(),
  );
  // Messages, their form and the budget are a chunk loaded with the team (docs/decisions/0080).
  const work = createLazyView(() => import('./teamwork.js'), report);
  work.load();
  const progress = createJobProgress(api);
  const [recipients, setRecipients] = createSignal<string[]>([]);
  const [reading, setReading] = createSignal<{ member: MemberRef; opener: HTMLElement | undefined } | null>(null);
  // The conversation view is a chunk of its own, loaded when first opened (docs/decisions/0080).
  const dialog = createLazyView(
    () => import('./conversation-dialog.js').then((chunk) => chunk.ConversationDialog),
    (error) => {
      setReading(null);
      report(error);
    },
  );
  const showConversation = (member: MemberRef, opener: HTMLElement | undefined) => {
    if (hostOpensConversation(member.conversationId, member.name)) return;
    setReading({ member, opener });
    dialog.load();
  };
  let feedEl: HTMLElement | undefined;
  // The task board is a chunk of its own too, loaded when first opened; it replaces the feed while shown.
  const [boardShown, setBoardShown] = createSignal(false);
  // A failed load (offline) un-presses the toggle, so the next press retries and shows the board.
  const board = createLazyView(
    () => import('./task-board.js').then((chunk) => chunk.TaskBoard),
    (error) => {
      setBoardShown(false);
      report(error);
    },
  );
  /** A member's live status; a retired member is neither offered by the composer nor kept as a recipient. */
  const liveStatus = (member: TeamMember) =>
    feed.waiting(member.id) ? 'WAITING_CHANGE' : (feed.memberStatus(member.id) ?? member.status);
  createEffect(() => {
    const retired = new Set(
      team()
        ?.members.filter((m) => liveStatus(m) === 'RETIRED')
        .map((m) => m.id),
    );
    if (recipients().some((id) => retired.has(id))) setRecipients(recipients().filter((id) => !retired.has(id)));
  });

  // The team's and members' totals move exactly when a job's own usage does: read them again then.
  const calls = createMemo(() =>
    feed
      .order()
      .reduce((sum, id) => sum + (feed.request(id)?.usage.calls ?? 0) + (feed.receipt(id)?.usage.calls ?? 0), 0),
  );
  createEffect(on(calls, () => void loadUsage(), { defer: true }));

  const changed = () => {
    if (feed.live() !== 'live') void feed.refresh().catch(() => {});
  };

  const send = async (memberIds: string[], text: string, clientRequestId: string) => {
    const input = { teamId: props.teamId, memberIds, text, clientRequestId };
    await api.mutate<{ sendRequest: { jobs: { id: string }[] } }>(SEND_REQUEST, { input });
    changed();
  };

  const reconnect = async () => {
    setStatus('');
    try {
      const data = await api.mutate<{ reconnectTeam: { team: { status: string } } }>(RECONNECT_TEAM, {
        input: { teamId: props.teamId },
      });
      feed.setTeamStatus(data.reconnectTeam.team.status);
    } catch (error) {
      report(error);
    }
    feed.reconnect();
    void feed.refresh().catch(report);
  };

  const closeConversation = () => {
    const opener = reading()?.opener;
    setReading(null);
    opener?.focus();
  };

  return (
    <Show when={team()} fallback={<p class="muted">…</p>}>
      {(data) => (
        <TeamContext.Provider
          value={{
            teamId: props.teamId,
            team: data,
            feed,
            progress,
            usage,
            status: () => feed.teamStatus() ?? data().status,
            memberStatus: liveStatus,
            changed,
            reconnect,
            openConversation: showConversation,
            chunk: work.view,
          }}
        >
          <section class="workspace" aria-labelledby="at-team-name">
            <TeamHeader
              onDeleted={props.onDeleted}
              onRefresh={() => {
                void feed.refresh().catch(report);
                void loadUsage();
              }}
            />
            <TeamStateBanner />
            <div class="ws">
              <MemberList onMention={(id) => setRecipients((ids) => (ids.includes(id) ? ids : [...ids, id]))}>
                <Show when={work.view()}>
                  {(chunk) => [chunk().StatusLegend(), chunk().UsageSummary(), chunk().BudgetPanel()]}
                </Show>
              </MemberList>
              <div class="grow">
                <div class="row">
                  <p class="liveline grow" role="status">
                    {feed.live() === 'polling' ? t().feed.polling : feed.live() === 'live' ? t().feed.live : '…'}
                  </p>
                  <button
                    type="button"
                    aria-pressed={boardShown()}
                    onClick={() => {
                      setBoardShown(!boardShown());
                      board.load();
                    }}
                  >
                    {t().feed.board}
                  </button>
                </div>
                <Show when={boardShown() && board.view()}>
                  {(view) => {
                    const Board = view();
                    return <Board />;
                  }}
                </Show>
                <section
                  class="feed"
                  hidden={boardShown() && !!board.view()}
                  aria-label={t().feed.activity}
                  ref={feedEl}
                >
                  <For each={feed.order()} fallback={<p class="muted">{t().feed.emptyFeed}</p>}>
                    {(id) => (
                      <Show
                        when={feed.request(id)}
                        fallback={<Show when={work.view()}>{(chunk) => chunk().MessageItem({ id })}</Show>}
                      >
                        {(job) => <ActivityCard job={job()} receipt={feed.receipt(id)} scrollBox={() => feedEl} />}
                      </Show>
                    )}
                  </For>
                </section>
                <Show when={(feed.teamStatus() ?? data().status) !== 'CLOSED'}>
                  <Composer
                    teamId={props.teamId}
                    members={data().members.filter((m) => liveStatus(m) !== 'RETIRED')}
                    recipients={recipients()}
                    setRecipients={setRecipients}
                    send={send}
                  />
                </Show>
                <Show when={work.view()}>{(chunk) => chunk().MessageForm()}</Show>
              </div>
            </div>
          </section>
          <Show when={dialog.view()}>
            {(view) => (
              <Show when={reading()} keyed>
                {(open) => {
                  const ConversationDialog = view();
                  return <ConversationDialog member={open.member} onClose={closeConversation} />;
                }}
              </Show>
            )}
          </Show>
        </TeamContext.Provider>
      )}
    </Show>
  );
}
