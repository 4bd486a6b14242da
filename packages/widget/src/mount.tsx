import { createEffect, createSignal, ErrorBoundary, onCleanup, Show } from 'solid-js';
import { render } from 'solid-js/web';
import { createApi } from './api.js';
import { ENGLISH, isChinese, loadStrings, type Strings } from './i18n.js';
import { createStatusLine } from './status-line.js';
import { STYLES } from './styles.js';
import { App } from './ui/app.js';
import { WidgetContext } from './ui/context.js';

/** Options of {@link mount} (and, as attributes, of `<agent-teams-widget>`). */
export interface WidgetOptions {
  /** GraphQL URL (absolute or relative to the page); the WebSocket URL is derived from it. */
  endpoint: string;
  /** Bearer token; kept in memory only. */
  token?: string | null;
  /** Called before each request and connection when the host mints short-lived tokens. */
  getToken?: () => Promise<string | null> | string | null;
  /** `en` (default) or `zh`. */
  locale?: string;
  /** `light`, `dark` or `auto` (follows `prefers-color-scheme`, the default). */
  theme?: 'light' | 'dark' | 'auto';
  /** Id of a team to open first. */
  team?: string;
  /**
   * Lets the host show a member's conversation itself: when given, the widget calls it instead of
   * opening its own conversation view, unless it returns `false`.
   */
  onOpenConversation?: (conversationId: string, memberName: string) => unknown;
}

/** A mounted widget. */
export interface WidgetHandle {
  /** Closes sockets, aborts requests, stops timers and removes every node the widget added. */
  dispose(): void;
  /**
   * Changes options in place; a new endpoint remounts, and so does the first token or `getToken`
   * of a widget started without either (its reads so far were all refused). Other options apply
   * live.
   */
  update(options: Partial<WidgetOptions>): void;
}

/**
 * Renders the widget into `target` inside its own shadow root.
 *
 * @remarks A container element (with an open shadow root) is appended to `target`, or `target`
 * itself is used when it is a ShadowRoot; the host's CSS cannot reach in and the widget's cannot
 * leak out.
 */
export function mount(target: Element | ShadowRoot, options: WidgetOptions): WidgetHandle {
  if (!target || typeof (target as Node).appendChild !== 'function') {
    throw new TypeError('[agent-teams/widget] mount() needs an Element or a ShadowRoot');
  }
  if (!options?.endpoint) throw new TypeError('[agent-teams/widget] mount() needs options.endpoint');
  let current = { ...options };
  let container: HTMLElement | null = null;
  let root: ShadowRoot;
  if (target instanceof ShadowRoot) root = target;
  else {
    container = document.createElement('div');
    container.className = 'agent-teams';
    target.appendChild(container);
    root = container.attachShadow({ mode: 'open' });
  }
  const holder = document.createElement('div');
  root.appendChild(holder);

  const [opts, setOpts] = createSignal(current);
  let teardown: (() => void) | null = null;

  const start = () => {
    const api = createApi({
      endpoint: current.endpoint,
      token: async () => {
        const o = opts();
        return o.getToken ? ((await o.getToken()) ?? null) : (o.token ?? null);
      },
    });
    // Null until a Chinese table has loaded: nothing is shown in the wrong language meanwhile.
    const [strings, setStrings] = createSignal<Strings | null>(isChinese(current.locale) ? null : ENGLISH);
    const status = createStatusLine(api, () => strings()?.common.error('NETWORK'));
    const lang = () => (isChinese(opts().locale) ? 'zh' : 'en');
    const stopRender = render(() => {
      createEffect(() => {
        const locale = opts().locale;
        let wanted = true;
        // Chinese that cannot be loaded (offline, a chunk not copied) falls back to English.
        void loadStrings(locale)
          .catch(() => ENGLISH)
          .then((table) => wanted && setStrings(() => table));
        onCleanup(() => {
          wanted = false;
        });
      });
      return (
        <Show when={strings()}>
          {(t) => (
            <WidgetContext.Provider
              value={{
                api,
                t,
                lang,
                setStatus: status.show,
                hostOpensConversation: (id, name) => {
                  const hook = opts().onOpenConversation;
                  return hook !== undefined && hook(id, name) !== false;
                },
              }}
            >
              <style>{STYLES}</style>
              <div class="root" data-theme={opts().theme ?? 'auto'} lang={lang()}>
                <div class="top">
                  <p>{t().common.intro}</p>
                  <p class="status" role="status" hidden={status.message() === ''}>
                    {status.message()}
                  </p>
                </div>
                <ErrorBoundary fallback={(error) => <p role="alert">{String(error?.message ?? error)}</p>}>
                  <App initialTeam={opts().team} endpoint={current.endpoint} />
                </ErrorBoundary>
              </div>
            </WidgetContext.Provider>
          )}
        </Show>
      );
    }, holder);
    teardown = () => {
      stopRender();
      api.dispose();
    };
  };
  start();

  return {
    dispose() {
      teardown?.();
      teardown = null;
      holder.remove();
      container?.remove();
    },
    update(next) {
      const endpointChanged = next.endpoint !== undefined && next.endpoint !== current.endpoint;
      // Started without any credential (the README's snippet sets `getToken` in a script after
      // `widget.js`, which already upgraded the element), every read so far was refused: start
      // over with the credential instead of keeping "no teams" and UNAUTHENTICATED on screen.
      const firstCredential = !(current.getToken || current.token) && !!(next.getToken || next.token);
      current = { ...current, ...next };
      setOpts(current);
      if ((endpointChanged || firstCredential) && teardown) {
        teardown();
        start();
      }
    },
  };
}
