// The compliance site (`toolgate site`) as a person sees it, in Debian's
// headless Chromium driven by playwright-core, served over HTTP from
// 127.0.0.1 as GitHub Pages would serve it:
//
// - every page is reached from the landing page, every local link resolves
//   to a file, and every `#fragment` to an element of its page;
// - no page scrolls sideways at 1280x800, nor at a phone's 390x844; a grid
//   of up to 18 requirements fits either width whole (a wider one may scroll
//   inside its own box on a phone, never the page);
// - a grid cell's details open on a click, inside the screen, and close on
//   Escape; a link to a cell opens it; the language filter and the order
//   work;
// - axe-core finds no serious or critical accessibility violation on the
//   landing page, each grid, each suite's first runtime page and each
//   versions page;
// - each grid page weighs (with the shared style sheet and script) less
//   than --max-grid-kb;
// - screenshots of each kind of page go to --shots.
//
//   node runner/site-test/browser.mjs SITE_DIR --shots DIR [--max-grid-kb 500] [--rows SUITE=N]...
//
// Exits 1 naming every check that failed, 2 on a usage error.
import { createServer } from "node:http";
import { readFileSync, existsSync, statSync, mkdirSync } from "node:fs";
import { join, resolve, extname, normalize, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const usage = (why) => {
  console.error(`${why}\nusage: node browser.mjs SITE_DIR --shots DIR [--max-grid-kb N] [--rows SUITE=N]...`);
  process.exit(2);
};
let site;
let shots;
let maxGridKb = 500;
const rows = new Map();
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === "--shots") shots = args[++i];
  else if (a === "--max-grid-kb") maxGridKb = Number(args[++i]);
  else if (a === "--rows") {
    const [suite, n] = String(args[++i]).split("=");
    rows.set(suite, Number(n));
  } else if (a.startsWith("--")) usage(`unknown option ${a}`);
  else site = a;
}
if (!site || !shots) usage("SITE_DIR and --shots are required");
site = resolve(site);
if (!existsSync(join(site, "index.html"))) usage(`${site}/index.html does not exist: run toolgate site first`);
mkdirSync(shots, { recursive: true });

const failures = [];
const fail = (what) => {
  failures.push(what);
  console.log(`FAIL ${what}`);
};
const ok = (what) => console.log(`ok   ${what}`);

// the static server
const types = { ".html": "text/html; charset=utf-8", ".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml" };
const fileOf = (urlPath) => {
  const path = normalize(join(site, decodeURIComponent(urlPath)));
  return path.startsWith(site) ? path : null;
};
const server = createServer((req, res) => {
  const path = fileOf(new URL(req.url, "http://x").pathname);
  if (!path || !existsSync(path) || !statSync(path).isFile()) {
    res.writeHead(404).end("not found");
    return;
  }
  res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(readFileSync(path));
});
await new Promise((done) => server.listen(0, "127.0.0.1", done));
const origin = `http://127.0.0.1:${server.address().port}`;

const executablePath = process.env.TOOLGATE_CHROMIUM || "/usr/bin/chromium";
const browser = await chromium.launch({
  executablePath,
  headless: true,
  // this machine's network is closed: Chromium's background connections
  // would be refused at every start
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const axeSource = readFileSync(join(here, "node_modules/axe-core/axe.min.js"), "utf8");

const desktop = { width: 1280, height: 800 };
const phone = { width: 390, height: 844 };

async function open(path, viewport = desktop) {
  const page = await browser.newPage({ viewport });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const response = await page.goto(origin + path, { waitUntil: "load" });
  if (!response || response.status() !== 200) fail(`${path}: HTTP ${response && response.status()}`);
  return { page, errors };
}

const sideways = (page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

// 1. crawl: every page from the landing page, every link and fragment
const pages = new Map(); // path -> { ids, links }
const queue = ["/index.html"];
while (queue.length) {
  const path = queue.shift();
  if (pages.has(path)) continue;
  const { page, errors } = await open(path);
  const seen = await page.evaluate(() => ({
    ids: [...document.querySelectorAll("[id]")].map((e) => e.id),
    links: [...document.querySelectorAll("a[href], link[href], script[src], img[src]")].map((e) => e.getAttribute("href") ?? e.getAttribute("src")),
  }));
  for (const e of errors) fail(`${path}: script error ${e}`);
  const over = await sideways(page);
  if (over > 0) fail(`${path}: scrolls sideways by ${over} px at 1280x800`);
  pages.set(path, seen);
  for (const link of seen.links) {
    if (/^(https?:|mailto:)/.test(link)) continue;
    const url = new URL(link, origin + path);
    const file = fileOf(url.pathname);
    if (!file || !existsSync(file)) {
      fail(`${path}: link ${link} resolves to no file`);
      continue;
    }
    if (url.pathname.endsWith(".html")) {
      queue.push(url.pathname);
    }
  }
  await page.close();
}
let fragments = 0;
for (const [path, seen] of pages) {
  for (const link of seen.links) {
    if (/^(https?:|mailto:)/.test(link) || !link.includes("#")) continue;
    const url = new URL(link, origin + path);
    const target = pages.get(url.pathname);
    const id = decodeURIComponent(url.hash.slice(1));
    fragments++;
    if (!target) fail(`${path}: link ${link} names a page the crawl did not reach`);
    else if (!target.ids.includes(id)) fail(`${path}: link ${link}: no element #${id} there`);
  }
}
ok(`${pages.size} pages reached from the landing page, every local link and ${fragments} fragments resolved, none scrolls sideways at 1280x800`);

// 2. the grids
const grids = [...pages.keys()].filter((p) => /^\/[^/]+\/index\.html$/.test(p));
if (grids.length === 0) fail("no grid page (SUITE/index.html) was reached");
const weights = [];
for (const path of grids) {
  const suite = path.split("/")[1];
  const weight = ["", "site.css", "site.js"]
    .map((f) => statSync(f ? join(site, f) : fileOf(path)).size)
    .reduce((a, b) => a + b, 0);
  weights.push(`${suite} ${Math.round(weight / 1024)} KB`);
  if (weight > maxGridKb * 1024) fail(`${path}: ${Math.round(weight / 1024)} KB with its style and script, over ${maxGridKb} KB`);
  const { page } = await open(path);
  const shape = await page.evaluate(() => {
    const table = document.querySelector("table.grid");
    const box = document.querySelector(".grid-box");
    return {
      rows: table.querySelectorAll("tbody tr[data-runtime]").length,
      columns: table.querySelectorAll("thead th.req").length,
      cells: table.querySelectorAll("tbody td").length,
      tableRight: table.getBoundingClientRect().right,
      boxOver: box.scrollWidth - box.clientWidth,
      width: document.documentElement.clientWidth,
    };
  });
  if (rows.has(suite) && shape.rows !== rows.get(suite)) fail(`${path}: ${shape.rows} runtime rows, expected ${rows.get(suite)}`);
  if (shape.cells !== shape.rows * shape.columns) fail(`${path}: ${shape.cells} cells for ${shape.rows} rows and ${shape.columns} requirements`);
  if (shape.tableRight > shape.width || shape.boxOver > 0) fail(`${path}: the grid is wider than the 1280-px screen (right edge ${shape.tableRight}, its box over by ${shape.boxOver} px)`);
  await page.screenshot({ path: join(shots, `grid-${suite}-1280.png`), fullPage: true });
  // a cell opens on a click, inside the screen, and closes on Escape
  const cells = await page.$$("td.fail summary, td.warn summary, td.pass summary");
  for (const which of [0, cells.length - 1]) {
    const summary = cells[which];
    if (!summary) {
      fail(`${path}: no cell to open`);
      break;
    }
    await summary.scrollIntoViewIfNeeded();
    await summary.click();
    const opened = await summary.evaluate((s) => {
      const details = s.parentElement;
      const pop = details.querySelector(".pop").getBoundingClientRect();
      return { open: details.open, left: pop.left, right: pop.right, height: pop.height, text: details.querySelector(".pop").innerText };
    });
    if (!opened.open || opened.height === 0) fail(`${path}: cell ${which} did not open on a click`);
    if (opened.left < 0 || opened.right > desktop.width) fail(`${path}: cell ${which}'s details leave the screen (${opened.left}..${opened.right})`);
    if (!/case\(s\)/.test(opened.text)) fail(`${path}: cell ${which}'s details say nothing of its cases: ${opened.text}`);
    const over = await sideways(page);
    if (over > 0) fail(`${path}: an open cell makes the page scroll sideways by ${over} px`);
    if (which === 0) await page.screenshot({ path: join(shots, `grid-${suite}-cell-open.png`) });
    await page.keyboard.press("Escape");
    if (await summary.evaluate((s) => s.parentElement.open)) fail(`${path}: Escape did not close cell ${which}`);
  }
  // a link to a cell opens it
  const cellId = await page.evaluate(() => document.querySelector("tbody td[id] > details").parentElement.id);
  await page.goto(`${origin}${path}#${cellId}`);
  if (!(await page.evaluate((id) => document.getElementById(id).querySelector("details").open, cellId))) fail(`${path}#${cellId}: the linked cell is not open`);
  // the language filter hides the other languages' rows, and shows them again
  const languages = await page.$$eval(".controls button[data-language]", (bs) => bs.map((b) => b.dataset.language));
  if (await page.evaluate(() => document.querySelector(".controls").hidden)) fail(`${path}: the controls stayed hidden with the script on`);
  if (languages.length >= 2) {
    await page.click(`.controls button[data-language="${languages[0]}"]`);
    const shown = await page.$$eval("table.grid tbody", (bs) => bs.filter((b) => !b.hidden).map((b) => b.dataset.language));
    if (shown.join() !== languages[0]) fail(`${path}: filtering on ${languages[0]} shows ${shown.join()}`);
    await page.click(`.controls button[data-language="${languages[0]}"]`);
    const all = await page.$$eval("table.grid tbody", (bs) => bs.filter((b) => !b.hidden).length);
    if (all !== languages.length) fail(`${path}: clearing the filter shows ${all} of ${languages.length} languages`);
  }
  // ordered by MUST passed, each language's rows go from most to least
  await page.selectOption(".controls select", "passed");
  const ordered = await page.$$eval("table.grid tbody", (bs) =>
    bs.every((b) => {
      const share = [...b.querySelectorAll("tr[data-runtime]")].map((r) => Number(r.dataset.passed) / Math.max(1, Number(r.dataset.applicable)));
      return share.every((s, i) => i === 0 || share[i - 1] >= s);
    }),
  );
  if (!ordered) fail(`${path}: ordering by MUST passed left a row out of order`);
  await page.close();
  // on a phone: the page never scrolls sideways; a grid of up to 18
  // requirements fits whole
  const small = await open(path, phone);
  const phoneShape = await small.page.evaluate(() => ({
    over: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    boxOver: document.querySelector(".grid-box").scrollWidth - document.querySelector(".grid-box").clientWidth,
    columns: document.querySelectorAll("table.grid thead th.req").length,
  }));
  if (phoneShape.over > 0) fail(`${path}: scrolls sideways by ${phoneShape.over} px at 390x844`);
  if (phoneShape.columns <= 18 && phoneShape.boxOver > 0) fail(`${path}: its ${phoneShape.columns}-column grid is wider than a 390-px phone by ${phoneShape.boxOver} px`);
  await small.page.screenshot({ path: join(shots, `grid-${suite}-phone.png`), fullPage: true });
  const phoneCell = await small.page.$("tbody td summary");
  await phoneCell.click();
  const phonePop = await phoneCell.evaluate((s) => s.parentElement.querySelector(".pop").getBoundingClientRect());
  if (phonePop.left < 0 || phonePop.right > phone.width) fail(`${path}: a cell's details leave the phone's screen (${phonePop.left}..${phonePop.right})`);
  await small.page.close();
  ok(`${path}: ${shape.rows} runtimes x ${shape.columns} requirements fit 1280 px${phoneShape.columns <= 18 ? " and 390 px" : ""}; cells open, close, and open from a link; filter and order work`);
}
ok(`grid weights with style and script: ${weights.join(", ")} (limit ${maxGridKb} KB)`);

// 3. accessibility, and the screenshots of the other pages
const runtimePages = grids.map((g) => [...pages.keys()].find((p) => p.startsWith(g.replace("index.html", "")) && p !== g)).filter(Boolean);
const versionPages = [...pages.keys()].filter((p) => p.startsWith("/versions/"));
const checked = ["/index.html", ...grids, ...runtimePages, ...versionPages];
for (const path of checked) {
  const { page } = await open(path);
  await page.addScriptTag({ content: axeSource });
  const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ["violations"] })).violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length, target: v.nodes[0] && v.nodes[0].target.join(" ") })));
  for (const v of violations.filter((v) => v.impact === "serious" || v.impact === "critical")) {
    fail(`${path}: axe ${v.impact} ${v.id} (${v.help}) on ${v.nodes} element(s), first ${v.target}`);
  }
  const minor = violations.filter((v) => v.impact !== "serious" && v.impact !== "critical");
  if (minor.length) console.log(`note ${path}: axe ${minor.map((v) => `${v.impact} ${v.id}`).join(", ")}`);
  const name = path === "/index.html" ? "landing" : path.slice(1).replace(/\//g, "-").replace(/\.html$/, "");
  if (!grids.includes(path)) await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  await page.close();
}
ok(`axe-core: no serious or critical violation on ${checked.length} pages (${checked.join(", ")})`);

await browser.close();
server.close();
if (failures.length) {
  console.log(`\n${failures.length} check(s) failed`);
  process.exit(1);
}
console.log(`screenshots in ${shots}`);
