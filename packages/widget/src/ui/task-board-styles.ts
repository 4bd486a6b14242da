/**
 * The task board's rules, shipped with its chunk and added inside the board (cards and forms
 * reuse the widget's `.card`, `.row` and `.text`). Columns sit side by side while there is room
 * and stack in a narrow widget.
 */
export const TASK_BOARD_STYLES = `
.board{display:grid;gap:8px}
.cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(180px,1fr));gap:8px;max-height:520px;overflow:auto}
.col{border:1px solid var(--border);border-radius:8px;padding:6px;min-width:0}
.col ul{list-style:none;margin:0;padding:0;display:grid;gap:6px}
.board h4{margin:0;font-size:14px;flex:1}
.kv{margin:4px 0;font-size:12px;display:grid;grid-template-columns:auto minmax(0,1fr);gap:2px 6px}.kv dt{font-weight:600}.kv dd{margin:0}
.dep.open{color:var(--warn);font-weight:600}
.code{font-family:ui-monospace,monospace}
.board select{max-width:100%;font:inherit;color:inherit;background:var(--bg);border:1px solid var(--border);border-radius:6px}
.err{color:var(--danger);font-size:12px}.err:empty{display:none}
form.card{border-color:var(--primary)}
.board fieldset{border:1px solid var(--border);border-radius:6px;max-height:140px;overflow:auto}
.check{display:flex;gap:6px;font-weight:400;margin:2px 0}.check input{width:auto}
.stale{border:1px solid var(--warn);border-left-width:4px;border-radius:6px;padding:6px 8px}
`;
