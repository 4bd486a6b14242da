import { type Accessor, createContext, useContext } from 'solid-js';
import type { Api } from '../api.js';
import type { Strings } from '../i18n.js';

/** What every part of the widget reads: the API, the strings and the host hooks. */
export interface WidgetContextValue {
  readonly api: Api;
  readonly t: Accessor<Strings>;
  /** The `lang` of the strings in use (`en` or `zh`), for number formats. */
  readonly lang: Accessor<string>;
  /** Shows an action error in the status line (empty string clears it). */
  readonly setStatus: (message: string) => void;
  /** Offers a member's conversation to the host; true when the host shows it itself. */
  readonly hostOpensConversation: (conversationId: string, memberName: string) => boolean;
}

export const WidgetContext = createContext<WidgetContextValue>();

/** The widget context; fails loudly outside its provider. */
export function useWidget(): WidgetContextValue {
  const value = useContext(WidgetContext);
  if (!value) throw new Error('[agent-teams/widget] useWidget() must be used inside <WidgetContext.Provider>');
  return value;
}
