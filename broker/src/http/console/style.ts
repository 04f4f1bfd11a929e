// The console's only stylesheet, served as /console/style.css (the pages allow
// no inline style or script: Content-Security-Policy in routes.ts).
export const CONSOLE_CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }
header { background: #1d2330; color: #fff; padding: 10px 20px; display: flex; gap: 24px; align-items: baseline; }
header strong { font-size: 16px; }
header a { color: #c9d3e6; text-decoration: none; }
header a.on { color: #fff; border-bottom: 2px solid #5fa8ff; }
main { padding: 16px 20px; }
h1 { font-size: 20px; margin: 4px 0 12px; }
h2 { font-size: 16px; margin: 20px 0 6px; }
table { border-collapse: collapse; background: #fff; margin-bottom: 8px; }
th, td { border: 1px solid #dde1e8; padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: #eef1f5; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.lag { font-weight: 600; color: #a4330d; }
pre { margin: 0; white-space: pre-wrap; word-break: break-all; font: 12px/1.35 ui-monospace, monospace; max-width: 70ch; }
.binary { color: #7a4b00; }
.muted { color: #6b7385; }
.error { color: #a4330d; font-weight: 600; }
form { margin-bottom: 12px; display: flex; gap: 10px; align-items: end; }
label { display: flex; flex-direction: column; font-size: 12px; color: #4b5366; }
`;
