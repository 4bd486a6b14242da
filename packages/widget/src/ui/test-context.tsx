import type { JSX } from 'solid-js';
import { createApi } from '../api.js';
import { stringsFor } from '../i18n.js';
import { WidgetContext } from './context.js';

/** The GraphQL endpoint msw answers in component tests. */
export const TEST_ENDPOINT = 'http://widget.test/graphql';

/** Renders `ui` inside the widget context with a real API client; returns the status lines shown. */
export function withContext(ui: () => JSX.Element, locale = 'en') {
  const status: string[] = [];
  const opened: string[] = [];
  const api = createApi({ endpoint: TEST_ENDPOINT, token: async () => 'tok' });
  const view = () => (
    <WidgetContext.Provider
      value={{
        api,
        t: () => stringsFor(locale),
        setStatus: (message) => {
          if (message) status.push(message);
        },
        openConversation: (id) => opened.push(id),
      }}
    >
      {ui()}
    </WidgetContext.Provider>
  );
  return { view, status, opened, api };
}
