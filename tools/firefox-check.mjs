// Manual check in Firefox: drive Debian's firefox-esr over WebDriver BiDi with puppeteer-core
// (Playwright cannot drive a stock Firefox) and perform both labs' seed flows.
//
//   apt-get install -y firefox-esr
//   npm install --no-save puppeteer-core@25.16.0   (PUPPETEER_SKIP_DOWNLOAD=1: no browser download)
//   node tools/firefox-check.mjs file:///path/to/kvpage-site/cache.html   (or an http:// URL)
//
// Prints the figures it read and every console error, page error and failed request; exits 1 on any.
import puppeteer from "puppeteer-core";
const url = process.argv[2];
const browser = await puppeteer.launch({
  browser: "firefox",
  executablePath: "/usr/bin/firefox-esr",
  headless: true,
  extraPrefsFirefox: { "network.proxy.type": 0, "browser.safebrowsing.malware.enabled": false },
});
const page = await browser.newPage();
const problems = [];
page.on("console", (m) => { if (m.type() === "error") problems.push(m.text()); });
page.on("pageerror", (e) => problems.push(String(e)));
page.on("requestfailed", (r) => problems.push(`failed ${r.url()}`));
const t0 = Date.now();
await page.goto(url);
await page.waitForFunction(() => document.documentElement.dataset.python, { timeout: 120000 });
const state = await page.evaluate(() => document.documentElement.dataset.python);
console.log("python:", state, "after", Date.now() - t0, "ms");
const text = (sel) => page.$eval(sel, (el) => el.textContent);
await page.click("section[data-lab=decode] [data-action=generate]");
await page.waitForFunction(() => document.querySelector("section[data-lab=decode] [data-field=paid]").textContent === "616", { timeout: 30000 });
console.log("Paid so far:", await text("section[data-lab=decode] [data-field=paid]"));
await page.click("section[data-lab=decode] [value=recompute]");
await page.click("section[data-lab=decode] [data-action=generate]");
await page.waitForFunction(() => document.querySelector("section[data-lab=decode] [data-field=paid]").textContent === "9,176", { timeout: 30000 });
console.log("Recompute paid:", await text("section[data-lab=decode] [data-field=paid]"));
await page.$eval("[data-control=request2]", (box) => { box.value = "you are a precise assistant. Answer briefly User: 3+3?"; box.dispatchEvent(new Event("input", { bubbles: true })); });
await page.waitForFunction(() => document.querySelector("section[data-lab=next-request] [data-field=shared]").textContent.startsWith("0 /"), { timeout: 10000 });
console.log("Shared prefix:", await text("section[data-lab=next-request] [data-field=shared]"));
console.log("problems:", problems);
await browser.close();
process.exitCode = problems.length ? 1 : 0;
