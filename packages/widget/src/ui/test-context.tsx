import type { JSX } from 'solid-js';
import { createApi } from '../api.js';
import { ENGLISH } from '../i18n.js';
import { zh } from '../i18n-zh.js';
import { WidgetContext } from './context.js';

/** The GraphQL endpoint msw answers in component tests. */
export const TEST_ENDPOINT = 'http://widget.test/graphql';

/**
 * Renders `ui` inside the widget context with a real API client; returns the status lines shown
 * and the conversations offered to the host (`hostOpens` decides whether the host takes them).
 */
export function withContext(ui: () => JSX.Element, locale = 'en', hostOpens = false) {
  const status: string[] = [];
  const opened: string[] = [];
  const api = createApi({ endpoint: TEST_ENDPOINT, token: async () => 'tok' });
  const view = () => (
    <WidgetContext.Provider
      value={{
        api,
        t: () => (locale.startsWith('zh') ? zh : ENGLISH),
        lang: () => (locale.startsWith('zh') ? 'zh' : 'en'),
        setStatus: (message) => {
          if (message) status.push(message);
        },
        hostOpensConversation: (id) => {
          opened.push(id);
          return hostOpens;
        },
      }}
    >
      {ui()}
    </WidgetContext.Provider>
  );
  return { view, status, opened, api };
}
