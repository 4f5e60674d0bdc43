// The console's only assets, served by the console itself from its own origin (a self-hosted,
// offline service: no third-party origin, nothing fetched at run time). Plain CSS and one small
// script module; pages carry no inline script or style, so the CSP can forbid both.

export const CONSOLE_CSS = `:root {
  color-scheme: light;
  --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --accent: #0a5bd3; --bad: #a40e26; --good: #116329;
}
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--ink); background: #f6f8fa; }
header { display: flex; gap: 1.5rem; align-items: center; padding: 0.75rem 1.5rem; background: #fff; border-bottom: 1px solid var(--line); }
header .brand { font-weight: 700; }
header nav a { margin-right: 1rem; white-space: nowrap; }
header form { margin-left: auto; }
main { max-width: 64rem; margin: 1.5rem auto; padding: 0 1.5rem; }
a { color: var(--accent); }
a:focus, button:focus, input:focus, select:focus { outline: 3px solid #7aa7f7; outline-offset: 2px; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 0.5rem; }
table { width: 100%; border-collapse: collapse; background: #fff; }
th, td { text-align: left; padding: 0.5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; }
/* The playground: its tabs, form, and the transcript (a colour per speaker, with the label in text too). */
.tabs { display: flex; gap: 1.25rem; margin-bottom: 1rem; }
.tabs a.current { font-weight: 700; color: var(--ink); text-decoration: none; border-bottom: 3px solid var(--accent); }
form.playground { max-width: 40rem; }
textarea { font: inherit; padding: 0.4rem 0.5rem; border: 1px solid #8c959f; border-radius: 4px; }
label.check { display: flex; gap: 0.5rem; align-items: center; font-weight: 400; }
fieldset { display: grid; gap: 0.5rem; border: 1px solid var(--line); border-radius: 4px; }
#playground-result { margin-top: 1.5rem; }
#playground-result audio { width: 100%; margin: 0.5rem 0; }
ol.segments { list-style: none; padding: 0; display: grid; gap: 0.5rem; }
.segment { background: #fff; border: 1px solid var(--line); border-left: 6px solid var(--speaker); border-radius: 4px; padding: 0.5rem 0.75rem; }
.segment p { margin: 0.25rem 0; }
.speaker-label, .speaker-chip { font-weight: 700; color: var(--speaker-ink); }
.speaker-chip { padding: 0.1rem 0.6rem; border: 2px solid var(--speaker); border-radius: 999px; background: var(--speaker-tint); }
.speaker-1 { --speaker: #0a5bd3; --speaker-ink: #083f91; --speaker-tint: #e7f0fd; }
.speaker-2 { --speaker: #b35900; --speaker-ink: #7a3d00; --speaker-tint: #fdf0e3; }
.speaker-3 { --speaker: #116329; --speaker-ink: #0b4a1e; --speaker-tint: #e6f4ea; }
.speaker-4 { --speaker: #8250df; --speaker-ink: #5a2ea6; --speaker-tint: #f1ebfc; }
.speaker-unknown { --speaker: #57606a; --speaker-ink: #3b4148; --speaker-tint: #f0f2f4; }
.words { display: flex; flex-wrap: wrap; gap: 0.25rem; }
button.word { padding: 0.1rem 0.4rem; border-color: var(--line); background: var(--speaker-tint); }
button.word .time { font-size: 0.75rem; color: var(--muted); }
dl.audit { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; background: #fff; padding: 0.75rem; border: 1px solid var(--line); }
dl.audit dt { font-weight: 600; }
dl.audit dd { margin: 0; }
.buttons:not([hidden]) { display: flex; gap: 0.5rem; }
.partial { min-height: 1.5em; font-style: italic; color: var(--muted); }
pre.answer { max-height: 24rem; overflow: auto; background: #fff; border: 1px solid var(--line); padding: 0.5rem; font-size: 0.85rem; }
form.stack { display: grid; gap: 0.75rem; max-width: 28rem; background: #fff; padding: 1.25rem; border: 1px solid var(--line); border-radius: 6px; }
label { display: grid; gap: 0.25rem; font-weight: 600; }
input, select { font: inherit; padding: 0.4rem 0.5rem; border: 1px solid #8c959f; border-radius: 4px; }
button { font: inherit; padding: 0.4rem 0.9rem; border: 1px solid #1f2328; border-radius: 4px; background: #fff; color: var(--ink); cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.danger { border-color: var(--bad); color: var(--bad); }
.notice { padding: 0.75rem 1rem; border-radius: 6px; border: 1px solid var(--line); background: #fff; margin-bottom: 1rem; }
.notice.error { border-color: var(--bad); color: var(--bad); }
.notice.ok { border-color: var(--good); color: var(--good); }
.secret { display: flex; gap: 0.5rem; align-items: center; flex-wrap: wrap; margin-bottom: 1.5rem; }
.secret code { flex: 1 1 20rem; min-width: 0; font-size: 0.95rem; padding: 0.4rem 0.5rem; background: #fff; border: 1px solid var(--line); }
.secret code { border-radius: 4px; overflow-wrap: anywhere; }
.muted { color: var(--muted); }
form.settings { display: grid; gap: 0.35rem; }
form.settings label { font-weight: 400; font-size: 0.9rem; }
.inline { display: inline; }
/* account security: the TOTP setup steps, its QR code (inline SVG), recovery codes shown once */
ol.steps { padding-left: 1.25rem; display: grid; gap: 0.75rem; max-width: 40rem; }
figure.qr { margin: 0.5rem 0; }
svg.qr { width: 12rem; height: 12rem; border: 1px solid var(--line); }
#recovery-codes { background: #fff; border: 1px solid var(--line); border-radius: 4px; padding: 0.75rem 1rem; max-width: 16rem; font-size: 1rem; }
/* webhooks: a key's secret versions and actions; the deliveries table scrolls sideways on narrow screens */
.webhook-key .actions { display: flex; gap: 0.5rem; margin-top: 0.5rem; }
.state-revoked, .outcome-failed { color: var(--bad); }
.outcome-delivered { color: var(--good); }
.scroll { overflow-x: auto; }
.scroll caption { text-align: left; }
table.deliveries { font-size: 0.9rem; }
table.deliveries code { font-size: 0.8rem; }
/* usage page: allowance bars, the daily chart (SVG, coloured by route class) and its legend */
.allowance { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 0.75rem 1rem; margin-bottom: 0.75rem; }
.allowance .label { font-weight: 600; }
.allowance p { margin: 0.25rem 0 0; }
.usage meter { width: 100%; height: 1.25rem; }
td meter { width: 8rem; }
svg.chart { width: 100%; height: auto; background: #fff; border: 1px solid var(--line); border-radius: 6px; }
svg.chart .grid { stroke: var(--line); }
svg.chart .axis { fill: var(--muted); font-size: 12px; }
.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.5rem 1.25rem; }
.swatch { display: inline-block; width: 0.9rem; height: 0.9rem; margin-right: 0.35rem; vertical-align: -0.1rem; border-radius: 2px; }
.series-inline { fill: #0a5bd3; background: #0a5bd3; }
.series-translation { fill: #8250df; background: #8250df; }
.series-job { fill: #116329; background: #116329; }
.series-realtime { fill: #bc4c00; background: #bc4c00; }
nav.periods { display: flex; gap: 1.25rem; margin-bottom: 1rem; }
`;

/** Copy buttons (`data-copy` names the id of the element whose text they copy); nothing else. */
export const CONSOLE_JS = `for (const button of document.querySelectorAll('button[data-copy]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    const text = document.getElementById(button.dataset.copy)?.textContent ?? '';
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Select and copy it';
    }
  });
}
`;
