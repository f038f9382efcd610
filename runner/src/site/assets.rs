//! The site's one style sheet and one script, shared by every page.
//!
//! The grid must fit a 1280-px screen with 20 runtimes, and a phone: its
//! columns share the width left by the runtime column (a fixed table
//! layout), a cell is a mark and its count, and an opened cell's details
//! float over the grid instead of widening it. Colours are never the only
//! sign: every mark is a symbol, and the text beside it says the grade to a
//! screen reader.
//!
//! The script only adds what needs one: filtering rows by language,
//! sorting them, opening the cell a link names, and closing an open cell
//! when another opens or on Escape. The pages read the same without it.

pub const STYLE: &str = r#":root { --line: #d0d7de; --muted: #57606a; --pass: #1a7f37; --pass-bg: #dafbe1; --fail: #cf222e; --fail-bg: #ffebe9; --warn: #7d4e00; --warn-bg: #fff8c5; --na-bg: #eaeef2; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; padding: 1rem 1.5rem 2rem; color: #1b1f24; max-width: 1400px; }
a { color: #0550ae; }
h1 { font-size: 1.4rem; margin: .3rem 0; }
h2 { font-size: 1.15rem; margin: 1.6rem 0 .4rem; }
h3 { font-size: 1rem; margin: 1.2rem 0 .3rem; }
code, pre { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f8fa; padding: .35rem .5rem; margin: .25rem 0; }
p.meta, .muted { color: var(--muted); }
nav.crumbs { font-size: 13px; color: var(--muted); }
footer { margin-top: 2.5rem; font-size: 12px; color: var(--muted); }
.sr { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.mark { display: inline-block; min-width: 1.1em; text-align: center; font-weight: 700; border-radius: 3px; }
.mark.pass, td.pass { color: var(--pass); background: var(--pass-bg); }
.mark.fail, td.fail { color: var(--fail); background: var(--fail-bg); }
.mark.warn, td.warn { color: var(--warn); background: var(--warn-bg); }
.mark.na, td.na { color: var(--muted); background: var(--na-bg); }
.mark.untested, td.untested { color: var(--muted); background: #fff; }
p.legend { font-size: 13px; color: var(--muted); }
.controls { display: flex; flex-wrap: wrap; gap: .4rem 1rem; align-items: center; margin: .6rem 0; font-size: 13px; }
.controls button { font: inherit; padding: .15rem .6rem; border: 1px solid var(--line); border-radius: 1rem; background: #fff; cursor: pointer; }
.controls button[aria-pressed="true"] { background: #0550ae; border-color: #0550ae; color: #fff; }
.controls select { font: inherit; }
/* the grid box scrolls only on a phone: on a wider screen it must not clip
   an opened cell's details, which float below the last rows */
.grid-box { width: 100%; }
table.grid { --rt: 13rem; border-collapse: collapse; table-layout: fixed; width: calc(100% - 1px); min-width: calc(var(--rt) + var(--cols) * 15px); }
table.grid th, table.grid td { border: 1px solid var(--line); padding: 0; }
table.grid col.rt { width: var(--rt); }
table.grid thead th { background: #f6f8fa; font-weight: 600; font-size: 12px; vertical-align: bottom; position: relative; }
table.grid thead th.req a { display: block; padding: .3rem .1rem; text-decoration: none; color: inherit; overflow: hidden; text-overflow: clip; white-space: nowrap; text-align: center; }
table.grid thead th.should a { font-style: italic; font-weight: 500; }
table.grid.rotated thead th.req a { writing-mode: vertical-rl; transform: rotate(180deg); margin: 0 auto; padding: .3rem 0; text-align: left; }
table.grid thead th .tip { display: none; position: absolute; top: 100%; z-index: 6; width: 20rem; max-width: 80vw; padding: .4rem .5rem; background: #1b1f24; color: #fff; font-weight: 400; font-size: 12px; text-align: left; white-space: normal; border-radius: 4px; }
table.grid thead th.req:hover .tip, table.grid thead th.req:focus-within .tip { display: block; }
table.grid thead th.left .tip { left: 0; } table.grid thead th.right .tip { right: 0; }
table.grid tbody th { text-align: left; font-weight: 400; padding: .2rem .4rem; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
table.grid tbody th .ver { color: var(--muted); font-size: 12px; }
table.grid tbody th .lang { color: var(--muted); font-size: 11px; }
table.grid tr.group th { background: #f6f8fa; font-weight: 600; font-size: 12px; letter-spacing: .02em; }
table.grid td { position: relative; text-align: center; }
td details > summary { list-style: none; cursor: pointer; padding: .22rem 0; white-space: nowrap; overflow: hidden; font-weight: 700; }
td details > summary::-webkit-details-marker { display: none; }
td details > summary:focus-visible { outline: 2px solid #0550ae; outline-offset: -2px; }
td summary .n { font-weight: 400; font-size: 11px; margin-left: .15em; }
table.grid.narrow td summary .n { display: none; }
td .pop { position: absolute; z-index: 5; top: 100%; width: 22rem; max-width: 85vw; text-align: left; background: #fff; color: #1b1f24; border: 1px solid var(--line); border-radius: 6px; box-shadow: 0 6px 20px rgba(0,0,0,.18); padding: .5rem .7rem; font-weight: 400; }
td.left .pop { left: 0; } td.right .pop { right: 0; }
td .pop p { margin: .2rem 0; }
td .pop ul { margin: .2rem 0; padding-left: 1.1rem; }
td .pop li { margin: .15rem 0; overflow-wrap: anywhere; }
dl.reqs dt { margin-top: .5rem; }
dl.reqs dd { margin: 0 0 0 1.2rem; }
table.list { border-collapse: collapse; width: 100%; }
table.list th, table.list td { border-bottom: 1px solid var(--line); padding: .25rem .4rem; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
table.list td.g { white-space: nowrap; }
table.list tr.changed { background: #fff8c5; }
.finding { border-left: 3px solid var(--line); padding-left: .6rem; margin: .5rem 0; }
.finding.fail { border-color: var(--fail); } .finding.warn { border-color: #d4a72c; }
.finding ul { padding-left: 1.1rem; margin: .2rem 0; }
.finding li { overflow-wrap: anywhere; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr)); gap: 1rem; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: .8rem 1rem; }
.card h2 { margin-top: 0; }
.card ul { padding-left: 1.1rem; margin: .3rem 0; }
ul.cites li { margin: .25rem 0; overflow-wrap: anywhere; }
img.badge { vertical-align: middle; }
@media (max-width: 700px) {
  body { padding: .6rem .5rem 1.5rem; }
  .grid-box { overflow-x: auto; }
  table.grid { --rt: 6.5rem; }
  table.grid thead th.req a { writing-mode: vertical-rl; transform: rotate(180deg); margin: 0 auto; padding: .3rem 0; text-align: left; }
  table.grid td summary .n { display: none; }
  table.grid tbody th .ver, table.grid tbody th .lang { display: none; }
  td .pop { position: fixed; top: auto; bottom: .5rem; left: .5rem; right: .5rem; width: auto; max-width: none; }
  table.grid thead th .tip { position: fixed; top: auto; bottom: .5rem; left: .5rem; right: .5rem; width: auto; max-width: none; }
}
"#;

pub const SCRIPT: &str = r#""use strict";
addEventListener("DOMContentLoaded", () => {
  const grid = document.querySelector("table.grid");
  // the cell a link names (#cell-<runtime>-<requirement>) opens
  const openLinked = () => {
    const id = decodeURIComponent(location.hash.slice(1));
    const target = id && document.getElementById(id);
    const details = target && target.querySelector("details");
    if (details) { details.open = true; target.scrollIntoView({ block: "center" }); }
  };
  openLinked();
  addEventListener("hashchange", openLinked);
  // one open cell at a time; Escape closes it
  document.addEventListener("toggle", (event) => {
    const opened = event.target;
    if (!(opened instanceof HTMLDetailsElement) || !opened.open || !opened.closest("td")) return;
    for (const other of document.querySelectorAll("td details[open]")) {
      if (other !== opened) other.open = false;
    }
  }, true);
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    for (const open of document.querySelectorAll("td details[open]")) {
      open.open = false;
      open.querySelector("summary").focus();
    }
  });
  if (!grid) return;
  const controls = document.querySelector(".controls");
  if (!controls) return;
  controls.hidden = false;
  const bodies = [...grid.tBodies];
  // filter by language: the buttons are toggles
  for (const button of controls.querySelectorAll("button[data-language]")) {
    button.addEventListener("click", () => {
      const pressed = button.getAttribute("aria-pressed") !== "true";
      button.setAttribute("aria-pressed", String(pressed));
      const shown = new Set([...controls.querySelectorAll("button[data-language][aria-pressed=true]")].map((b) => b.dataset.language));
      for (const body of bodies) body.hidden = shown.size > 0 && !shown.has(body.dataset.language);
    });
  }
  // sort: the runtimes file's order, or by the share of MUST requirements passed
  const sort = controls.querySelector("select");
  if (sort) sort.addEventListener("change", () => {
    for (const body of bodies) {
      const rows = [...body.querySelectorAll("tr[data-runtime]")];
      const key = (row) => sort.value === "passed"
        ? -Number(row.dataset.passed) / Math.max(1, Number(row.dataset.applicable))
        : Number(row.dataset.order);
      rows.sort((a, b) => key(a) - key(b) || Number(a.dataset.order) - Number(b.dataset.order));
      for (const row of rows) body.appendChild(row);
    }
  });
});
"#;
