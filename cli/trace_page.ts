/**
 * The fixed parts of the timeline page: its stylesheet and its script (which fills the
 * details panel from the page's embedded JSON with `textContent`, never as HTML).
 *
 * @module
 */

/** The page's stylesheet. */
export const TRACE_CSS: string = `
:root { --model: #4263eb; --ok: #2f9e44; --error: #e03131; --blocked: #f08c00;
  --timeout: #9c36b5; --aborted: #868e96; --line: #e9ecef; --ink: #212529; --muted: #6c757d; }
* { box-sizing: border-box; }
body { margin: 0; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: #fff; }
header { padding: 14px 20px 10px; border-bottom: 1px solid var(--line); }
h1 { font-size: 16px; margin: 0 0 4px; }
.summary { color: var(--muted); }
.legend { margin-top: 8px; display: flex; gap: 14px; flex-wrap: wrap; }
.legend span::before { content: ""; display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 5px; vertical-align: -1px; background: var(--c); }
.note { color: var(--blocked); margin-top: 6px; }
main { padding: 6px 20px 40px; }
.run { margin-top: 14px; }
.run h2 { font-size: 13px; font-weight: 600; margin: 0 0 4px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.row { display: flex; border-top: 1px solid var(--line); }
.label { width: 170px; flex: none; padding: 6px 8px 6px 0; }
.label b { display: block; }
.label small { color: var(--muted); display: block; }
.track { position: relative; flex: 1; margin: 6px 0; min-width: 300px; }
.axis .track { height: 16px; margin: 0; }
.tick { position: absolute; top: 0; font-size: 11px; color: var(--muted); border-left: 1px solid var(--line); padding-left: 3px; height: 16px; }
.bar { position: absolute; height: 20px; min-width: 4px; border: 0; border-radius: 3px; padding: 0 5px; color: #fff;
  font: 12px/20px system-ui, sans-serif; text-align: left; white-space: nowrap; overflow: hidden; cursor: pointer; background: var(--c); }
.bar.narrow { overflow: visible; color: var(--ink); }
.bar.narrow span { position: absolute; top: 0; left: 100%; padding-left: 4px; }
.bar.narrow.flip span { left: auto; right: 100%; padding: 0 4px 0 0; }
.bar:focus-visible, .bar.selected { outline: 2px solid var(--ink); outline-offset: 1px; }
.model { --c: var(--model); } .ok { --c: var(--ok); } .error { --c: var(--error); }
.blocked { --c: var(--blocked); } .timeout { --c: var(--timeout); } .aborted { --c: var(--aborted); }
.model.failed { --c: var(--error); }
aside { position: fixed; top: 0; right: 0; bottom: 0; width: min(440px, 90vw); background: #f8f9fa; border-left: 1px solid #dee2e6;
  padding: 14px 16px; overflow: auto; box-shadow: -4px 0 12px rgba(0,0,0,.06); }
aside[hidden] { display: none; }
body.open header, body.open main { margin-right: min(440px, 90vw); }
aside h3 { margin: 0 24px 8px 0; font-size: 14px; }
aside dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 10px; margin: 0 0 10px; }
aside dt { color: var(--muted); } aside dd { margin: 0; overflow-wrap: anywhere; }
aside h4 { margin: 12px 0 4px; font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
aside pre { margin: 0; padding: 8px; background: #fff; border: 1px solid #dee2e6; border-radius: 4px; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; max-height: 40vh; overflow: auto; }
#close { position: absolute; top: 10px; right: 12px; border: 0; background: none; font-size: 18px; cursor: pointer; }
`;

/** The page's script: a click on a bar shows its details. */
export const TRACE_JS: string = `
const data = JSON.parse(document.getElementById("tack-data").textContent);
const panel = document.getElementById("details");
let selected;
function show(key, bar) {
  const d = data[key];
  if (!d) return;
  selected?.classList.remove("selected");
  selected = bar; bar.classList.add("selected");
  panel.replaceChildren();
  const close = document.createElement("button");
  close.id = "close"; close.textContent = "×"; close.title = "Close";
  close.onclick = hide;
  const title = document.createElement("h3");
  title.id = "details-title"; title.textContent = d.title;
  const list = document.createElement("dl");
  for (const [k, v] of d.fields) {
    const dt = document.createElement("dt"); dt.textContent = k;
    const dd = document.createElement("dd"); dd.textContent = v;
    list.append(dt, dd);
  }
  panel.append(close, title, list);
  for (const [k, v] of d.blocks) {
    const h = document.createElement("h4"); h.textContent = k;
    const pre = document.createElement("pre"); pre.textContent = v;
    panel.append(h, pre);
  }
  panel.hidden = false;
  document.body.classList.add("open");
}
function hide() {
  panel.hidden = true;
  document.body.classList.remove("open");
  selected?.classList.remove("selected");
}
document.addEventListener("click", (event) => {
  const bar = event.target.closest(".bar");
  if (bar) show(bar.dataset.detail, bar);
});
document.addEventListener("keydown", (event) => { if (event.key === "Escape") hide(); });
`;
