/**
 * The task board's rules, shipped with its chunk and added inside the board. Columns sit side
 * by side while there is room and stack in a narrow widget (the root is a container).
 */
export const TASK_BOARD_STYLES = `
.board{display:flex;flex-direction:column;gap:8px}
.cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(180px,1fr));gap:8px;max-height:520px;overflow:auto;padding:2px}
.col{border:1px solid var(--border);border-radius:8px;padding:6px;min-width:0}
.col>ul{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:6px}
.task{border:1px solid var(--border);border-radius:6px;padding:6px 8px;overflow-wrap:anywhere;background:var(--bg)}
.task h4,.task-form h4{margin:0;font-size:14px;flex:1;min-width:0}
.task dl{margin:4px 0;font-size:12px;display:grid;grid-template-columns:auto minmax(0,1fr);gap:2px 6px}
.task dt{font-weight:600}.task dd{margin:0}
.details{white-space:pre-wrap;margin:4px 0;max-height:8em;overflow:auto}
.dep.open{color:var(--warn);font-weight:600}
.code{font-family:ui-monospace,monospace}
.actions select{max-width:100%;min-width:0;font:inherit;color:inherit;background:var(--bg);border:1px solid var(--border);border-radius:6px;padding:3px}
.err{color:var(--danger);margin:4px 0;font-size:12px}.err:empty{display:none}
.task-form{border:1px solid var(--primary);border-radius:8px;padding:8px 10px}
.deps{border:1px solid var(--border);border-radius:6px;max-height:140px;overflow:auto;margin:8px 0}
.check{display:flex;gap:6px;align-items:center;font-weight:400;margin:2px 0}.check input{width:auto}
.stale{border:1px solid var(--warn);border-left-width:4px;border-radius:6px;padding:6px 8px;margin:6px 0}
.diff{display:grid;grid-template-columns:auto minmax(0,1fr);gap:2px 8px;font-size:12px;overflow-wrap:anywhere}.diff dt{font-weight:600}.diff dd{margin:0}
`;
