import { mount, type WidgetHandle, type WidgetOptions } from './mount.js';

/**
 * Offers a member's conversation to the host page: dispatches the cancelable `open-conversation`
 * event on `el` and calls the host's `onOpenConversation` property, if set. True when the host
 * shows it itself (the property is set and did not return `false`, or a listener called
 * `preventDefault()`), so the widget does not open its own view.
 */
export function offerConversation(
  el: HTMLElement,
  hook: WidgetOptions['onOpenConversation'],
  conversationId: string,
  memberName: string,
): boolean {
  const handled = hook !== undefined && hook(conversationId, memberName) !== false;
  const event = new CustomEvent('open-conversation', {
    detail: { conversationId, memberName },
    bubbles: true,
    cancelable: true,
  });
  return !el.dispatchEvent(event) || handled;
}

/** The custom element's tag; the only global name the widget adds. */
export const ELEMENT_NAME = 'agent-teams-widget';

const ATTRIBUTES = ['endpoint', 'token', 'locale', 'theme', 'team'] as const;
const PROPERTIES = ['token', 'getToken', 'onOpenConversation'] as const;

/**
 * Defines `<agent-teams-widget endpoint token locale theme team>` (once; safe to call again).
 *
 * @remarks Hand-written on `mount()` rather than solid-element: about 1 kB gzip smaller, and no
 * reflected-property pitfalls. The `getToken` and `onOpenConversation` properties take functions.
 * Opening a member's conversation goes through {@link offerConversation}.
 */
export function defineElement(): void {
  if (typeof customElements === 'undefined' || customElements.get(ELEMENT_NAME)) return;

  class AgentTeamsWidget extends HTMLElement {
    static observedAttributes = [...ATTRIBUTES];
    #handle: WidgetHandle | null = null;
    #getToken: WidgetOptions['getToken'];
    #token: string | null = null;
    #onOpen: WidgetOptions['onOpenConversation'];

    get token(): string | null {
      return this.#token ?? this.getAttribute('token');
    }
    set token(value: string | null) {
      this.#token = value;
      this.#handle?.update({ token: this.token });
    }
    get getToken(): WidgetOptions['getToken'] {
      return this.#getToken;
    }
    set getToken(fn: WidgetOptions['getToken']) {
      this.#getToken = fn;
      this.#handle?.update({ getToken: fn });
    }
    get onOpenConversation(): WidgetOptions['onOpenConversation'] {
      return this.#onOpen;
    }
    set onOpenConversation(fn: WidgetOptions['onOpenConversation']) {
      this.#onOpen = fn;
      this.#handle?.update({ onOpenConversation: fn });
    }

    #options(): WidgetOptions {
      const theme = this.getAttribute('theme');
      return {
        endpoint: this.getAttribute('endpoint') ?? '/graphql',
        token: this.token,
        getToken: this.#getToken,
        locale: this.getAttribute('locale') ?? undefined,
        theme: theme === 'light' || theme === 'dark' ? theme : 'auto',
        team: this.getAttribute('team') ?? undefined,
        onOpenConversation: (id, name) => offerConversation(this, this.#onOpen, id, name),
      };
    }

    connectedCallback() {
      if (this.#handle) return;
      // A host script may set a property on the element before this module defined it (module
      // scripts run late); that own property hides the accessor, so move it onto the accessor.
      for (const name of PROPERTIES) {
        if (Object.hasOwn(this, name)) {
          const value = this[name];
          delete this[name];
          (this as Record<(typeof PROPERTIES)[number], unknown>)[name] = value;
        }
      }
      const root = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
      this.#handle = mount(root, this.#options());
    }

    disconnectedCallback() {
      this.#handle?.dispose();
      this.#handle = null;
    }

    attributeChangedCallback() {
      this.#handle?.update(this.#options());
    }
  }
  customElements.define(ELEMENT_NAME, AgentTeamsWidget);
}
