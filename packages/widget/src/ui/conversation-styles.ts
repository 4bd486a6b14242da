/**
 * The conversation view's rules, shipped with its chunk and added inside the dialog. The dialog
 * sits in the top layer, so it is sized by the viewport, not by the widget.
 */
export const CONVERSATION_STYLES = `
.code{font:12px/1.4 ui-monospace,monospace}
.conv{width:min(720px,calc(100vw - 16px));max-height:calc(100vh - 32px);padding:0;border:1px solid var(--border);border-radius:10px;background:var(--bg);color:var(--fg)}
.conv[open]{display:flex;flex-direction:column}.conv::backdrop{background:#000a}
.conv>.head{padding:12px 14px;border-bottom:1px solid var(--border)}
.conv-body{padding:10px 14px;overflow:auto;min-height:0}
.msgs{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:8px}
.who{font-size:12px;font-weight:700;color:var(--muted-fg);margin:0}
.msg{border-left:3px solid var(--border);padding-left:8px;overflow-wrap:anywhere}.msg.USER{border-color:var(--primary)}.msg.call,.msg.TOOL{border-color:var(--warn)}
.working{border-top:1px solid var(--border);margin-top:10px;padding-top:6px}
`;
