/**
 * The eval report page's stylesheet (html.ts inlines it: the page fetches
 * nothing). Light and dark through `light-dark()`, one colour per verdict,
 * and a narrow layout under 640 px where chart labels sit above their bars
 * and only the case table scrolls sideways.
 */
export const REPORT_STYLE = `
:root{color-scheme:light dark;--bg:light-dark(#f6f7f9,#0f1216);--surface:light-dark(#fff,#171b21);--surface-2:light-dark(#f0f2f5,#1e232a);--border:light-dark(#dde1e6,#2c333c);--text:light-dark(#1b1f24,#e6e9ed);--muted:light-dark(#5d6672,#9aa4b1);--link:light-dark(#0b5cad,#6cb0ff);
--good:light-dark(#1a7f37,#4ac26b);--good-bg:light-dark(#e6f4ea,#12301c);--warn:light-dark(#9a6700,#e3b341);--warn-bg:light-dark(#fff4d6,#332a0f);--bad:light-dark(#c62828,#ff6b6b);--bad-bg:light-dark(#fdecea,#3a1717);--neutral:light-dark(#5d6672,#9aa4b1);--neutral-bg:light-dark(#eceff3,#232931);
--v-pass:light-dark(#1a7f37,#3fb55f);--v-fail:light-dark(#c62828,#f05252);--v-timed-out:light-dark(#9a6700,#c99a1e);--v-over-budget:light-dark(#7a3fc8,#a77ef0);--v-skipped:light-dark(#8a939e,#6b7580);--v-error:light-dark(#b3246f,#e0559b);
--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;--radius:8px}
*,*::before,*::after{box-sizing:border-box}
html,body{margin:0;background:var(--bg);color:var(--text);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;-webkit-text-size-adjust:100%}
main{max-width:1400px;margin:0 auto;padding:16px}
a{color:var(--link)}
code{font-family:var(--mono);font-size:12.5px;overflow-wrap:anywhere}
h1{font-size:22px;margin:0 0 12px}
h2{font-size:16px;margin:0 0 8px}
h3{font-size:14px;margin:0 0 8px}
section{background:var(--surface);border:1px solid var(--border);border-radius:var(--radius);padding:14px;margin:0 0 14px}
.muted{color:var(--muted)}
.hint,.key{color:var(--muted);font-size:12.5px;margin:0 0 10px}
:focus-visible{outline:2px solid var(--link);outline-offset:2px}
.tone-good{--tone:var(--good);--tone-bg:var(--good-bg)}.tone-warn{--tone:var(--warn);--tone-bg:var(--warn-bg)}.tone-bad{--tone:var(--bad);--tone-bg:var(--bad-bg)}.tone-neutral{--tone:var(--neutral);--tone-bg:var(--neutral-bg)}
.v-pass{--v:var(--v-pass)}.v-fail{--v:var(--v-fail)}.v-timed-out{--v:var(--v-timed-out)}.v-over-budget{--v:var(--v-over-budget)}.v-skipped{--v:var(--v-skipped)}.v-error{--v:var(--v-error)}
.page-header{margin:0 0 16px}
.facts{display:flex;flex-wrap:wrap;gap:8px 24px;margin:0}
.facts div{min-width:0}
.facts dt{font-size:12px;color:var(--muted)}
.facts dd{margin:0;font-weight:600;overflow-wrap:anywhere}
.scripted-label{color:var(--warn)}
.notice{margin:12px 0 0;padding:10px 14px;border-radius:var(--radius);border:1px solid var(--tone);border-left-width:5px;background:var(--tone-bg)}
.notice strong{color:var(--tone)}
.tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,14rem),1fr));gap:12px}
.tile{border:1px solid var(--border);border-radius:var(--radius);padding:12px 14px;background:var(--surface-2);min-width:0}
.tile-label{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.tile-value{font-size:26px;font-weight:700;line-height:1.2;margin:2px 0;overflow-wrap:anywhere}
.tile-detail{font-size:12.5px;color:var(--muted)}
.tile.delta{background:var(--tone-bg);border-color:var(--tone)}
.tile.delta .tile-value{color:var(--tone)}
.tile.delta .direction{color:var(--tone)}
.badge{display:inline-block;white-space:nowrap;padding:1px 8px;border-radius:999px;font-size:12px;font-weight:600;color:#fff;background:var(--v)}
.cells{display:flex;flex-wrap:wrap;gap:6px;list-style:none;margin:0 0 10px;padding:0}
.cell{display:flex;flex-direction:column;align-items:center;width:36px}
.cell .fill{fill:var(--v)}
.cell.v-skipped .fill{fill:var(--surface);stroke:var(--v);stroke-width:2;stroke-dasharray:4 3}
.cell text{fill:#fff;font-size:18px;font-weight:700}
.cell.v-skipped text{fill:var(--v)}
.cell-n{font-size:11px;color:var(--muted)}
.legend{display:flex;flex-wrap:wrap;gap:6px 16px;list-style:none;margin:0;padding:0}
.count{font-weight:700}
.bars{display:grid;grid-template-columns:minmax(7rem,16rem) minmax(0,1fr) 6.5rem;column-gap:10px;align-items:center}
.bar-row{display:contents}
.bar-label{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;font-family:var(--mono);font-size:12.5px}
.bar-label .sym{display:inline-block;width:1.4em;color:var(--v);font-weight:700;font-family:system-ui,sans-serif}
.bar-value{font-variant-numeric:tabular-nums;white-space:nowrap;text-align:right;font-size:12.5px}
svg.bar{display:block;overflow:visible}
.bar .track{fill:var(--surface-2)}
.bar .fill{fill:var(--v,var(--link))}
.bar .fill.partial{fill-opacity:.5}
.bar .unknown{fill:none;stroke:var(--muted);stroke-dasharray:4 3}
.bar .median{stroke:var(--text);stroke-width:1.5;stroke-dasharray:3 3}
.bar .start{fill:var(--surface);stroke:var(--text);stroke-width:2}
.axis .ticks{display:flex;justify-content:space-between;font-size:11px;color:var(--muted);border-top:1px solid var(--border);padding-top:2px}
.key{display:flex;flex-wrap:wrap;gap:4px 16px;list-style:none;padding:0}
.key li{white-space:nowrap}
.key span{display:inline-block;vertical-align:middle;margin-right:6px}
.key-bar{width:18px;height:10px;border-radius:2px;background:var(--muted)}
.key-bar.partial{opacity:.5}
.key-unknown{width:18px;height:10px;border:1px dashed var(--muted);border-radius:2px}
.key-dot{width:10px;height:10px;border-radius:50%;border:2px solid var(--text)}
.key-median{width:0;height:14px;border-left:2px dashed var(--text)}
.budget{margin:0 0 14px}
.budget-text{margin:0 0 4px}
.budget .fill{fill:var(--link)}
.budget.over .fill{fill:var(--bad)}
.change-boxes{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,20rem),1fr));gap:12px;margin:14px 0}
.change-box{border:2px solid var(--tone);background:var(--tone-bg);border-radius:var(--radius);padding:12px 14px}
.change-box h3{color:var(--tone);font-size:16px;margin:0}
.change-box .hint{margin:0 0 8px}
.minor summary .muted{font-weight:400}
.change-box ul,.minor ul{list-style:none;margin:0;padding:0;display:grid;gap:8px}
.change-id{font-family:var(--mono);font-weight:700;overflow-wrap:anywhere}
.change-title{color:var(--muted);overflow-wrap:anywhere}
.change-verdicts{margin-top:2px}
.change-reason{font-size:12.5px;color:var(--muted);overflow-wrap:anywhere}
.minor{margin:8px 0 0;border-top:1px solid var(--border);padding-top:8px}
.minor summary{cursor:pointer;font-weight:600}
.minor ul{margin-top:8px}
.table-wrap{overflow-x:auto;border:1px solid var(--border);border-radius:var(--radius)}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{padding:8px 7px;border-bottom:1px solid var(--border);text-align:left;vertical-align:top}
thead th{background:var(--surface-2);font-size:12px}
tbody tr:last-child>*{border-bottom:0}
tbody tr{box-shadow:inset 4px 0 0 var(--v)}
td.index .sym{display:inline-block;width:1.1em;text-align:center;color:var(--v);font-weight:700}
td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
th.case{font-weight:400;min-width:11rem;max-width:20rem}
.case-id{font-family:var(--mono);font-weight:600;overflow-wrap:anywhere}
.case-title{color:var(--muted);font-size:12.5px;overflow-wrap:anywhere}
td.reason{min-width:11rem;max-width:26rem;overflow-wrap:anywhere}
.mismatch{color:var(--bad);font-weight:600}
.matrix-wrap{display:inline-block;max-width:100%;vertical-align:top}
table.matrix{width:auto}
.matrix tbody tr{box-shadow:none}
.matrix tbody th{font-family:var(--mono);font-weight:600;white-space:nowrap}
.matrix th.outcome{font-family:var(--mono);font-weight:600;white-space:nowrap}
.matrix .reported-h{text-align:left;border-bottom:1px solid var(--border)}
.matrix .diag{background:var(--good-bg);color:var(--good);font-weight:700}
.matrix .off{color:var(--bad);font-weight:600}
.matrix .false-repro{background:var(--bad-bg);color:var(--bad);font-weight:700;outline:2px solid var(--bad);outline-offset:-2px}
.matrix .sym{font-weight:700}
.not-a-link{display:inline-block;vertical-align:bottom;max-width:6rem;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;font-family:var(--mono);font-size:12px;color:var(--muted)}
.link-list{list-style:none;margin:0;padding:0;white-space:nowrap}
.link-label{color:var(--muted);font-size:12px}
.checks-cell{min-width:13rem;max-width:30rem}
.checks{list-style:none;margin:0;padding:0;display:grid;gap:4px}
.checks .mark{font-weight:700}
.checks .ok .mark{color:var(--good)}
.checks .not-ok .mark{color:var(--bad)}
.checks .detail{color:var(--muted);overflow-wrap:anywhere}
@media (max-width:640px){
main{padding:12px}
section{padding:12px}
h1{font-size:20px}
.tile-value{font-size:22px}
.tiles{grid-template-columns:repeat(2,minmax(0,1fr));gap:8px}
.bars{grid-template-columns:minmax(0,1fr) auto;column-gap:8px}
.bar-label{grid-column:1/-1;margin-top:4px}
.axis-pad:first-child{display:none}
}
`;
