/** Default colours of each theme; every pair the widget draws meets WCAG AA (see styles.test.ts). */
export const PALETTES = {
  light: {
    background: '#ffffff',
    foreground: '#1c1f24',
    muted: '#f1f3f5',
    'muted-foreground': '#4d5560',
    border: '#d5d9de',
    primary: '#2450c8',
    'primary-foreground': '#ffffff',
    destructive: '#b42318',
  },
  dark: {
    background: '#15181d',
    foreground: '#e8eaed',
    muted: '#232831',
    'muted-foreground': '#aab2bd',
    border: '#3a414c',
    primary: '#8fb0ff',
    'primary-foreground': '#0b1530',
    destructive: '#ff9a8f',
  },
} as const;

const SHORT = {
  background: 'bg',
  foreground: 'fg',
  muted: 'muted',
  'muted-foreground': 'muted-fg',
  border: 'border',
  primary: 'primary',
  'primary-foreground': 'primary-fg',
  destructive: 'danger',
} as const;

/** `--bg:var(--agent-teams-background,#fff);…`: the host's custom property wins over the default. */
function themeVars(palette: (typeof PALETTES)[keyof typeof PALETTES], ok: string, warn: string): string {
  const vars = Object.entries(SHORT).map(
    ([name, short]) => `--${short}:var(--agent-teams-${name},${palette[name as keyof typeof SHORT]})`,
  );
  return `${vars.join(';')};--ok:${ok};--warn:${warn}`;
}
/** Colours of the team and member states (used as text too, so AA on the background: styles.test.ts). */
export const STATE_COLOURS = {
  light: { ok: '#1d7a3a', warn: '#9a5b00' },
  dark: { ok: '#6fd08c', warn: '#f0b45a' },
} as const;
const LIGHT_VARS = themeVars(PALETTES.light, STATE_COLOURS.light.ok, STATE_COLOURS.light.warn);
const DARK_VARS = themeVars(PALETTES.dark, STATE_COLOURS.dark.ok, STATE_COLOURS.dark.warn);

/**
 * The widget's only stylesheet, inside its shadow root. Colours come from custom properties the
 * host may set on the element (`--agent-teams-*`); the defaults meet WCAG AA in both themes.
 *
 * @remarks The layout follows the widget's own width, not the viewport's: `.root` is an
 * inline-size query container and everything stacks under 720 px of it, so a 360 px sidebar on a
 * wide page gets the narrow layout. Status dots differ in shape as well as colour. The
 * conversation view brings its own rules with its chunk (`CONVERSATION_STYLES`).
 */
export const STYLES = `
:host{display:block}
.root{${LIGHT_VARS};container:at/inline-size;
font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg);border:1px solid var(--border);border-radius:10px;box-sizing:border-box;max-width:100%;overflow:hidden}
.root[data-theme=dark]{${DARK_VARS}}
@media (prefers-color-scheme:dark){.root[data-theme=auto]{${DARK_VARS}}}
*,*::before,*::after{box-sizing:border-box}
button,input,textarea{font:inherit;color:inherit}
button{cursor:pointer;border:1px solid var(--border);background:var(--muted);border-radius:6px;padding:4px 10px}
button:disabled{cursor:not-allowed;opacity:.6}
:focus-visible{outline:2px solid var(--primary);outline-offset:1px}
.primary{background:var(--primary);color:var(--primary-fg);border-color:var(--primary)}
.link{background:none;border:none;color:var(--primary);padding:2px 4px;text-decoration:underline}
.danger{color:var(--danger);background:var(--bg)}
input,textarea{background:var(--bg);border:1px solid var(--border);border-radius:6px;padding:6px 8px;width:100%;min-width:0}
textarea{resize:vertical}
label{display:block;font-weight:600;margin:8px 0 4px}
h2,h3{margin:0 0 6px;overflow-wrap:anywhere}
h2{font-size:18px}h3{font-size:14px}
summary{cursor:pointer}
.top{padding:10px 14px;border-bottom:1px solid var(--border);color:var(--muted-fg)}
.top p{margin:0}
.status{color:var(--danger);margin-top:4px!important}
.layout{display:grid;grid-template-columns:170px minmax(0,1fr);min-height:540px}
nav{border-right:1px solid var(--border);padding:10px;display:flex;flex-direction:column;gap:6px;min-width:0}
.eyebrow{font-size:11px;letter-spacing:.08em;text-transform:uppercase;color:var(--muted-fg);font-weight:700;margin:0}
.team-btn{text-align:left;display:flex;gap:6px;align-items:center;background:none;border-color:transparent;min-width:0;max-width:100%}.team-btn>span+span{overflow:hidden;white-space:nowrap;text-overflow:ellipsis}
.team-btn[aria-current=page]{background:var(--muted);border-color:var(--border)}
.avatar{display:inline-grid;place-items:center;width:22px;height:22px;border-radius:50%;background:var(--primary);color:var(--primary-fg);font-size:12px;flex:none}
.new{border-style:dashed;background:none}
.tip{font-size:12px;color:var(--muted-fg);border:1px solid var(--border);border-radius:6px;padding:6px}
main{padding:12px 14px;min-width:0}
.chips{display:flex;flex-wrap:wrap;gap:4px;margin:4px 0}
.chip{border-radius:999px;padding:2px 8px;font-size:12px}
.catalog{list-style:none;margin:6px 0;padding:0;max-height:260px;overflow:auto;border:1px solid var(--border);border-radius:6px}
.catalog li{display:flex;gap:8px;align-items:flex-start;padding:6px 8px;border-bottom:1px solid var(--border)}
.catalog li label{margin:0;font-weight:600}
.catalog input{width:auto;margin-top:3px}
.desc,.muted,.legend,.usage{color:var(--muted-fg);font-size:12px}
.row{display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.grow{flex:1;min-width:0}
.ws{display:grid;grid-template-columns:170px minmax(0,1fr);gap:12px}
.head{display:flex;justify-content:space-between;gap:8px;align-items:flex-start;flex-wrap:wrap}.workspace>.head>.grow{flex-basis:240px}
.goal{max-height:100px;overflow:auto;color:var(--muted-fg);white-space:pre-wrap;overflow-wrap:anywhere;margin:0 0 8px}
.state{margin:0;font-size:12px;font-weight:600;border:1px solid currentColor;border-radius:999px;padding:1px 8px;white-space:nowrap}
.READY{color:var(--ok)}.CREATING{color:var(--warn)}.DISCONNECTED{color:var(--danger)}.CLOSED{color:var(--muted-fg)}
.banner{display:flex;flex-wrap:wrap;gap:8px;align-items:center;border:1px solid;border-left-width:4px;border-radius:6px;padding:8px 10px;margin:0 0 8px}
.banner p{margin:0;flex:1 1 200px;color:var(--fg)}
.menu{position:relative}.menu>summary{list-style:none;border:1px solid var(--border);background:var(--muted);border-radius:6px;padding:4px 10px}.menu>summary::-webkit-details-marker{display:none}
.menu>div{position:absolute;right:0;z-index:2;background:var(--bg);border:1px solid var(--border);border-radius:6px;padding:6px;display:flex;flex-direction:column;gap:4px;min-width:190px}
.side{display:flex;flex-direction:column;gap:6px;min-width:0}.side p{margin:0}
.members{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:4px}
.members li{display:flex;gap:6px;align-items:center;min-width:0}
.members .mention{flex:1;min-width:0;text-align:left;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.dot{display:inline-block;width:10px;height:10px;border-radius:50%;flex:none;background:var(--muted-fg)}
.dot.IDLE{background:var(--ok)}.dot.RUNNING{background:var(--primary);box-shadow:0 0 0 2px var(--bg),0 0 0 3px var(--primary)}
.dot.QUEUED,.dot.RETIRED,.dot.PROVISIONING{background:none;border:2px solid var(--warn)}.dot.RETIRED{border:2px dashed var(--muted-fg)}.dot.PROVISIONING{border-style:dotted}
.dot.WAITING_CHANGE{background:none;border:2px solid var(--primary);border-radius:2px}.lead{margin-left:4px;font-size:11px;color:var(--primary)}.role{display:block;overflow:hidden;text-overflow:ellipsis}
.dot.WAITING_INPUT{background:var(--warn);border-radius:1px;transform:rotate(45deg) scale(.9)}.dot.FAILED{background:var(--danger);border-radius:1px}
p.usage{margin:4px 0 0}
.feed{display:flex;flex-direction:column;gap:8px;max-height:420px;overflow:auto;padding:2px}
.card{border:1px solid var(--border);border-radius:8px;padding:8px 10px;overflow-wrap:anywhere}
.card header{display:flex;flex-wrap:wrap;gap:6px;align-items:center;justify-content:space-between}
.route{font-weight:700}
.badge{font-size:12px;border:1px solid var(--border);border-radius:999px;padding:0 8px}
.text{white-space:pre-wrap;margin:6px 0;max-height:16em;overflow:auto}
.result{background:var(--muted);border-radius:6px;padding:6px 8px;margin-top:6px;white-space:pre-wrap}
.ask{border:1px solid var(--warn);border-radius:6px;padding:6px 8px;margin:6px 0;min-width:0}.ask legend{padding:0 4px}
.ask .primary{margin-top:6px}
.tool{font-size:12px;color:var(--muted-fg);font-style:italic;margin:4px 0}
.liveline{font-size:12px;color:var(--muted-fg);margin:6px 0}
.composer{position:relative;border-top:1px solid var(--border);margin-top:10px;padding-top:8px}
.picker{list-style:none;margin:0;padding:4px;position:absolute;bottom:100%;left:0;z-index:3;background:var(--bg);border:1px solid var(--border);border-radius:6px;min-width:200px;max-width:100%}
.picker>div{padding:4px 8px;border-radius:4px;cursor:pointer}
.picker>div[aria-selected=true]{background:var(--primary);color:var(--primary-fg)}
.foot{display:flex;justify-content:space-between;align-items:center;gap:8px;margin-top:6px;flex-wrap:wrap}
[hidden]{display:none!important}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.dialog{border:1px solid var(--danger);border-radius:6px;padding:8px;margin:6px 0}
@container at (max-width:720px){.layout,.ws{grid-template-columns:minmax(0,1fr)}nav{border-right:none;border-bottom:1px solid var(--border);flex-direction:row;flex-wrap:wrap}.members{flex-direction:row;flex-wrap:wrap}.members .mention{flex:none;max-width:160px}.tip,.hint{display:none}}
@media (prefers-reduced-motion:reduce){*{transition:none!important}}
`;
