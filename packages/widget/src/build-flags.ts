declare const __WIDGET_CLASSIC__: boolean | undefined;

/**
 * True in the classic script (`widget.iife.js`), where Vite defines `__WIDGET_CLASSIC__`; false
 * in the module build and in tests.
 *
 * @remarks The classic script inlines every view, having no module graph to load chunks from;
 * with the task board it was 36,643 B gzip, over its 35 KiB limit, so it leaves the board out
 * (the minifier drops the toggle and the board's import). Hosts that want the board load the
 * module, `widget.js`.
 */
export const CLASSIC: boolean = typeof __WIDGET_CLASSIC__ === 'boolean' && __WIDGET_CLASSIC__;
