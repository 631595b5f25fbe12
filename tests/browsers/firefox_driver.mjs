// Drives Debian's firefox-esr over WebDriver BiDi with puppeteer-core for tests/browsers/test_firefox.py.
//
// One browser for the whole suite. Reads one JSON command per line on stdin and answers one JSON
// line on stdout: {"cmd": "run", "origin": ..., "steps": [...]} performs the steps (tests/browsers/flows.py
// writes them) in a fresh page and answers {"error": null | "what went wrong", "problems": [...],
// "requests": [...]}; {"cmd": "quit"} closes the browser. Elements are found as a reader finds them,
// by accessible role and name (WebDriver BiDi's accessibility locator), never by class or data attribute.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import puppeteer from "puppeteer-core";

const CAPTURE = readFileSync(new URL("./capture.js", import.meta.url), "utf8");
// The page's clock (clock.js, a function expression) installed and paused: for flows.py's open_stopped.
const CLOCK_STOPPED = `(${readFileSync(new URL("./clock.js", import.meta.url), "utf8").trim()}\n)() && window[Symbol.for("kvpage.clock")].pause();`;
const READY_MS = Number(process.env.KVPAGE_READY_MS || 60000);
// A bound on a hang, not a wait (a step ends as soon as its condition holds), as WebKit's EXPECT_S:
// 60 s (no step waits out a call's time limit: the flows move the page's clock, clock.js).
const EXPECT_MS = Number(process.env.KVPAGE_EXPECT_MS || 60000);

// KVPAGE_STEP_TIMES=1: each step's time on stderr (pytest -s shows it), to find where a flow's seconds go.
const STEP_TIMES = Boolean(process.env.KVPAGE_STEP_TIMES);
const describe = (s) => JSON.stringify(s, (key, value) => (typeof value === "string" && value.length > 80 ? `${value.slice(0, 80)}…` : value));

const browser = await puppeteer.launch({
  browser: "firefox",
  executablePath: process.env.FIREFOX || "/usr/bin/firefox-esr",
  headless: true,
  defaultViewport: { width: 1280, height: 900 },
  extraPrefsFirefox: { "network.proxy.type": 0, "browser.safebrowsing.malware.enabled": false },
});

// Accessibility queries are slow in Firefox: each goes through WebDriver BiDi's accessibility
// locator (browsingContext.locateNodes), which walks every element under where it starts and asks
// each for its accessible role and name; an element with no accessible (the content of a closed
// <details>: each lab's highlighted source, ~2,270 of a lab's ~2,470 elements) costs two forced
// refresh ticks of the page (Firefox's remote/shared/webdriver/Accessibility.sys.mjs). Walked from
// the document, a lookup took 2-5 s, and a lab link flow of three page loads ~39 s.
// So the locator starts at the candidates only (ROLES: the elements that can have the role, natively
// or by a role attribute, where a reader can reach them: not inside a closed <details> but its
// <summary>), each walking its own few elements, and its verdict on role and name is still the
// one that counts. The lookups are made with ElementHandle.queryAXTree, the call puppeteer's ::-p-aria
// selectors end in, from a handle in the page's own realm: ::-p-aria itself first moves its start
// into an isolated realm and every match back (3-4 times slower here). Each element is looked up once
// per page and kept, as the labs update their elements in place.
const found = new WeakMap();

// The elements that can have each role the flows look for: HTML-AAM's native ones, then any element
// whose role attribute names it. A role left out here fails its lookup ("no …"), never passes wrongly.
const ROLES = {
  button: "button, input[type=button], input[type=submit], input[type=reset], summary",
  combobox: "select, input[list]",
  group: "fieldset, details, optgroup",
  heading: "h1, h2, h3, h4, h5, h6",
  link: "a[href], area[href]",
  radio: "input[type=radio]",
  region: "section",
  status: "output",
  textbox: "textarea, input:not([type]), input[type=text], input[type=email], input[type=tel], input[type=url]",
};

// The candidates under `root` for `role`, in document order, where a reader can reach them.
async function candidates(root, role) {
  const list = await root.evaluateHandle(
    (el, css) =>
      [...el.querySelectorAll(css)].filter((candidate) => {
        for (let details = candidate.closest("details:not([open])"); details; details = details.parentElement?.closest("details:not([open])") ?? null) {
          if (!details.querySelector(":scope > summary")?.contains(candidate)) return false;
        }
        return true;
      }),
    [ROLES[role], `[role~="${role}"]`].filter(Boolean).join(", "),
  );
  const properties = await list.getProperties();
  await list.dispose();
  return [...properties.values()].map((property) => property.asElement()).filter((handle) => handle !== null);
}

// The first element under `scope` (a page: its document) with this role and accessible name, now,
// where a reader can reach it; a page's region through its heading (regionOf).
async function first(scope, role, name, visible) {
  if (typeof scope.queryAXTree !== "function" && role === "region") return regionOf(scope, name);
  // A page may be replaced while a step waits (a key press that navigates): its document anew each time.
  const start = typeof scope.queryAXTree === "function" ? scope : await scope.evaluateHandle(() => document.documentElement);
  const roots = await candidates(start, role);
  try {
    for (const root of roots) {
      for await (const handle of root.queryAXTree(name, role)) {
        if (!visible || (await handle.isVisible())) return handle;
      }
    }
    return null;
  } finally {
    for (const root of roots) await root.dispose();
    if (start !== scope) await start.dispose();
  }
}

// A page's region named `name`, as a reader finds a lab: by its heading, whose nearest <section>
// (or role=region) the accessibility locator is asked whether it is a region named `name`. That walks
// the whole section, its closed disclosure included (~2.5 s a region under load), so the verdict is
// kept for the page's URL (its fragment aside, which holds a lab's state): a reload, or a lab link
// opened afresh, is the same HTML, and its region is found again by the same heading. Anything else
// (no such heading, or its section not the region) falls back to the locator's walk of the document.
const regions = new Set();

async function regionOf(page, name) {
  const heading = await first(page, "heading", name, false);
  const candidate = heading && (await heading.evaluateHandle((el) => el.closest("section, [role=region]")));
  await heading?.dispose();
  const element = candidate?.asElement();
  if (element) {
    const known = JSON.stringify([page.url().split("#")[0], name]);
    if (regions.has(known)) return element;
    for await (const handle of element.queryAXTree(name, "region")) {
      if (await element.evaluate((el, found) => el === found, handle)) {
        regions.add(known);
        return element;
      }
      break; // the locator's first answer is the start itself when it matches
    }
  }
  await candidate?.dispose();
  return everywhere(page, "region", name);
}

// The first element of the whole document with this role and name: the locator's own walk.
async function everywhere(page, role, name) {
  const root = await page.evaluateHandle(() => document);
  try {
    for await (const handle of root.queryAXTree(name, role)) return handle;
    return null;
  } finally {
    await root.dispose();
  }
}

// The first such element once there is one; null after `timeout` ms. With `visible`, only once it is shown.
async function locate(scope, role, name, { timeout = EXPECT_MS, visible = false } = {}) {
  const started = Date.now();
  for (;;) {
    const hit = await first(scope, role, name, visible).catch(() => null); // a document being left: not yet
    if (hit) return hit;
    if (Date.now() - started > timeout) return null;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function find(scope, role, name, what) {
  if (!found.has(scope)) found.set(scope, new Map());
  const known = found.get(scope);
  const key = JSON.stringify([role, name]);
  if (known.has(key)) return known.get(key);
  const handle = await locate(scope, role, name);
  if (!handle) throw new Error(`no ${what}`);
  known.set(key, handle);
  return handle;
}

async function until(check, describe) {
  const started = Date.now();
  let last;
  for (;;) {
    last = await check();
    if (last.ok) return;
    if (Date.now() - started > EXPECT_MS) throw new Error(`${describe}, but it shows ${JSON.stringify(last.seen)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// What the lab itself says, for a failed step's message: its alert (an error) and its runtime
// line, as a reader sees them (site_template/labs/runtime-status.html).
async function labSays(region) {
  const said = await region.evaluate((el) => {
    const [alert, runtime] = [el.querySelector("[data-role=error]"), el.querySelector("[data-role=runtime]")];
    return { alert: alert && !alert.hidden ? alert.textContent.trim() : "", runtime: runtime ? runtime.textContent.trim() : "" };
  });
  return ` (the lab's alert: ${JSON.stringify(said.alert)}; its runtime line: ${JSON.stringify(said.runtime)})`;
}

// The page's audit so far, taken out of it (null: no capture script in this document). Read
// before any key press, which may leave the document, and at the end.
async function drain(page) {
  return page.evaluate(() => {
    const seen = window[Symbol.for("kvpage.audit")];
    return seen ? seen.splice(0) : null;
  });
}

// Resolves once the page has drawn a frame: a key pressed on a page just navigated to, laid out but
// not yet drawn, can be lost (a make test run under load: "/" on the chapter the search had just
// landed on never focused its search box), as Chromium drops one (tests/e2e/conftest.py, painted).
// A reader cannot press a key on a page not yet shown. The second animation frame comes after the
// first was drawn. (Firefox reported no paint entry on the second page opened from a folder.)
function painted(page) {
  return page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
}

// Steps that need no region: the search flow (flows.py, search_flow), across pages.
async function pageStep(page, s) {
  if (s.op === "goto") {
    await page.goto(s.url);
    if (!(await locate(page, "combobox", s.label, { timeout: READY_MS, visible: true }))) {
      throw new Error(`no combobox "${s.label}" shown`);
    }
  } else if (s.op === "key") {
    await painted(page);
    await page.keyboard.press(s.key);
  } else if (s.op === "type") {
    await page.keyboard.type(s.text);
  } else if (s.op === "set_query") {
    const box = await locate(page, "combobox", s.label);
    if (!box) throw new Error(`no combobox "${s.label}"`);
    await box.evaluate((el, text) => {
      el.value = text;
      el.dispatchEvent(new Event("input", { bubbles: true }));
    }, s.text);
  } else if (s.op === "expect_focused") {
    const target = await locate(page, s.role, s.name);
    if (!target) throw new Error(`no ${s.role} "${s.name}"`);
    await until(async () => {
      const seen = await target.evaluate((el) => el === document.activeElement);
      return { ok: seen, seen };
    }, `${s.role} "${s.name}" should have the focus`);
  } else if (s.op === "expect_page") {
    const check = new Function(`return (${s.js})()`);
    // A page that is being left cannot answer: that is "not yet", not a failure.
    await until(async () => {
      const seen = await page.evaluate(check).catch((e) => `(no answer: ${e.message})`);
      return { ok: seen === true, seen };
    }, s.what);
  } else {
    return false;
  }
  return true;
}

async function step(page, s, problems) {
  const ready = () => page.waitForFunction(() => document.documentElement.dataset.python === "ready", { timeout: READY_MS });
  if (s.op === "open") {
    await page.goto(s.url);
    found.delete(page); // a new document: its elements are new
    await ready();
    return;
  }
  if (s.op === "open_stopped") {
    // A preload script, as capture.js is, but for this load only: a reload or a later open runs as usual.
    const { identifier } = await page.evaluateOnNewDocument(CLOCK_STOPPED);
    try {
      await page.goto(s.url);
      found.delete(page); // a new document: its elements are new
      await ready();
    } finally {
      await page.removeScriptToEvaluateOnNewDocument(identifier);
    }
    return;
  }
  if (s.op === "reload") {
    await page.reload();
    found.delete(page); // a new document: its elements are new
    await ready();
    return;
  }
  if (s.op === "open_copied") {
    // Afresh, as a new tab would: the link differs from this page's URL only in its fragment.
    const region = await find(page, "region", s.region, `region "${s.region}"`);
    const box = await find(region, s.role, s.label, `${s.role} labelled "${s.label}"`);
    const link = await box.evaluate((el) => el.value);
    await page.goto("about:blank");
    found.delete(page);
    await page.goto(link);
    await ready();
    return;
  }
  if (s.op === "key") {
    const seen = await drain(page);
    if (seen === null) problems.push("the capture script was not installed in the page");
    else problems.push(...seen.map((text) => `page: ${text}`));
  }
  if (await pageStep(page, s)) return;
  const region = await find(page, "region", s.region, `region "${s.region}"`);
  if (s.op === "screenshot") {
    await region.screenshot({ path: s.path });
    return;
  }
  if (s.op === "click") {
    const target = await find(region, s.role, s.name, `${s.role} "${s.name}"`);
    await target.click();
  } else if (s.op === "paste") {
    const box = await find(region, s.role, s.label, `${s.role} labelled "${s.label}"`);
    await box.evaluate((el, text) => {
      el.value = text;
      el.dispatchEvent(new Event("input", { bubbles: true }));
    }, s.text);
  } else if (s.op === "fill") {
    const box = await find(region, s.role, s.label, `${s.role} labelled "${s.label}"`);
    await box.click();
    await box.evaluate((el) => el.select());
    await page.keyboard.type(s.text);
  } else if (s.op === "find") {
    await find(region, s.role, s.label, `${s.role} labelled "${s.label}"`);
  } else if (s.op === "expect_alert") {
    const box = await region.$("[role=alert]");
    if (!box) throw new Error(`no alert in region "${s.region}"`);
    await until(async () => {
      const seen = await box.evaluate((el) => (el.hidden ? "" : el.textContent.trim()));
      return { ok: seen === s.text, seen };
    }, `the alert should read ${JSON.stringify(s.text)}`);
  } else if (s.op === "js") {
    const check = async () => {
      const seen = await region.evaluate(new Function("el", `return (${s.js})(el)`));
      return { ok: seen === true, seen };
    };
    if (s.until) await until(check, `${s.js} should hold`);
    else if (!(await check()).ok) throw new Error(`${s.js} does not hold`);
  } else if (s.op === "expect_text") {
    const out = await find(region, s.role, s.label, `${s.role} labelled "${s.label}"`);
    try {
      await until(async () => {
        const seen = await out.evaluate((el) => el.textContent.trim());
        return { ok: seen === s.text, seen };
      }, `"${s.label}" should read ${JSON.stringify(s.text)}`);
    } catch (error) {
      throw new Error(`${error.message}${await labSays(region)}`);
    }
  } else if (s.op === "expect_disabled") {
    const target = await find(region, s.role, s.name, `${s.role} "${s.name}"`);
    await until(async () => {
      // Disabled, or aria-disabled (a button that keeps the focus but does nothing: decode's Generate once done).
      const seen = await target.evaluate((el) => el.disabled || el.getAttribute("aria-disabled") === "true");
      return { ok: seen === s.disabled, seen };
    }, `${s.role} "${s.name}" should be ${s.disabled ? "disabled" : "enabled"}`);
  } else if (s.op === "expect_js") {
    const target = await find(region, s.role, s.name, `${s.role} "${s.name}"`);
    const holds = await target.evaluate(new Function("el", `return (${s.js})(el)`));
    if (!holds) throw new Error(`${s.role} "${s.name}" fails ${s.js}`);
  } else {
    throw new Error(`unknown step ${JSON.stringify(s)}`);
  }
}

// Firefox logs "Invalid markup: Incorrect number of children for <mfrac/> tag." for a formula laid
// out while one of its elements has the wrong number of children. Parsing a large document (the
// single file) on a loaded machine, it may lay out a formula before the parser has added its
// element's last child, and log this for markup that is valid once parsed (seen once in five runs
// under `stress --cpu 2`). So the message is a problem only if, at the end of the flow, an element
// of that name still has the wrong number of children (or the name is not one whose number is known).
const WRONG_CHILDREN = /^Error: Invalid markup: Incorrect number of children for <(\w+)\/> tag\.$/;
const CHILDREN = { mfrac: 2, msub: 2, msup: 2, mroot: 2, munder: 2, mover: 2, msubsup: 3, munderover: 3 };
const STILL_WRONG = `([name, count]) => [...document.getElementsByTagNameNS("http://www.w3.org/1998/Math/MathML", name)]
  .filter((element) => element.children.length !== count).length`;

async function run({ origin, steps }) {
  const page = await browser.newPage();
  const laidOutEarly = new Set();
  regions.clear(); // each flow finds its regions afresh
  const problems = [];
  const requests = [];
  await page.evaluateOnNewDocument(CAPTURE);
  page.on("request", (r) => {
    const url = r.url();
    requests.push(url);
    if (!(url.startsWith(origin) || url.startsWith("data:") || url.startsWith("blob:"))) {
      problems.push(`request outside the site: ${url}`);
    }
  });
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`firefox console error: ${m.text()}`));
  page.on("pageerror", (e) => {
    const early = WRONG_CHILDREN.exec(String(e));
    if (early && early[1] in CHILDREN) laidOutEarly.add(early[1]);
    else problems.push(`firefox page error: ${e}`);
  });
  let error = null;
  try {
    for (const s of steps) {
      const started = Date.now();
      await step(page, s, problems);
      if (STEP_TIMES) process.stderr.write(`step ${Date.now() - started} ms: ${describe(s)}\n`);
    }
  } catch (e) {
    error = String(e && e.message ? e.message : e);
  }
  for (const name of laidOutEarly) {
    const wrong = await page.evaluate(`(${STILL_WRONG})(${JSON.stringify([name, CHILDREN[name]])})`).catch(() => -1);
    if (wrong !== 0) problems.push(`firefox page error: Invalid markup: ${wrong} <${name}> with the wrong number of children`);
  }
  try {
    const seen = await drain(page);
    if (seen === null) problems.push("the capture script was not installed in the page");
    else problems.push(...seen.map((text) => `page: ${text}`));
  } catch (e) {
    problems.push(`could not read the page's capture: ${e}`);
  }
  await page.close();
  return { error, problems, requests };
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const command = JSON.parse(line);
  if (command.cmd === "quit") break;
  let answer;
  try {
    answer = await run(command);
  } catch (e) {
    answer = { error: `driver failure: ${e}`, problems: [], requests: [] };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
await browser.close();
