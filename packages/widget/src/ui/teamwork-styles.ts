/** The teamwork chunk's rules (message items and form, legend, usage and budget), added with the form. */
export const TEAMWORK_STYLES = `
.card.msg{border-style:dashed}.card.msg .badge{text-transform:lowercase}
.msgform{border-top:1px solid var(--border);margin-top:10px;padding-top:6px}
.msgform fieldset,.budget fieldset{border:none;margin:0;padding:0;min-width:0}
.msgform .opts{display:flex;flex-wrap:wrap;gap:2px 12px}.msgform .opts label{display:flex;gap:4px;align-items:center;font-weight:400;margin:2px 0}
.msgform .opts input{width:auto}
.legend ul{list-style:none;margin:4px 0;padding:0;display:flex;flex-wrap:wrap;gap:4px 10px}
.legend li{display:flex;align-items:center;gap:5px}
.usage dl{margin:4px 0}.usage dt{font-weight:600;color:var(--fg)}.usage dd{margin:0 0 4px}
.budget meter{width:100%}.budget form{display:flex;flex-direction:column;gap:2px}
`;
