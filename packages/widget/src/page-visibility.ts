/** True while the page is hidden (a background tab, a minimised window). */
export function pageHidden(): boolean {
  return document.hidden;
}

/** Calls `listener` each time the page becomes visible again; returns the function that stops it. */
export function onPageVisible(listener: () => void): () => void {
  const onChange = () => {
    if (!document.hidden) listener();
  };
  document.addEventListener('visibilitychange', onChange);
  return () => document.removeEventListener('visibilitychange', onChange);
}
