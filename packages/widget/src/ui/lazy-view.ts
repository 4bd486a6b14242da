import { type Accessor, createSignal } from 'solid-js';

/** A component that lives in a chunk of its own (see docs/decisions/0080). */
export interface LazyView<C> {
  /** The component once loaded; undefined before. */
  readonly view: Accessor<C | undefined>;
  /** Starts loading it (once; again after a failure). */
  load(): void;
}

/**
 * Loads a view on first use instead of with the widget.
 *
 * @remarks Solid's `lazy()` does the same through `createResource` and Suspense, which would add
 * about 1 KiB gzip to the widget for two call sites; a failed load (offline, a host that did not
 * copy the chunk) goes to `onError` and may be retried.
 */
export function createLazyView<C>(load: () => Promise<C>, onError: (error: unknown) => void): LazyView<C> {
  const [view, setView] = createSignal<C>();
  let loading = false;
  return {
    view,
    load() {
      if (loading || view()) return;
      loading = true;
      load().then(
        (component) => setView(() => component),
        (error: unknown) => {
          loading = false;
          onError(error);
        },
      );
    },
  };
}
