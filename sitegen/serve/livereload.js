// Live reload for `build.py serve` (sitegen/serve/http_server.py), which adds this script to the pages
// it serves; it is never part of the built site or the zip. It takes in each newer build from serve's event
// stream the way that loses least (takeIn): a new model swapped into the running Python (swapModel), new
// styles loaded again, else a reload; a failed build's errors are shown over the page (showErrors). Both the
// script and the stream come from the page's own origin, so its Content-Security-Policy allows them as they are.
"use strict";

// Long because: this wrapper is the script's own scope, which keeps its names off the page's
// globals; each function in it is held to 60 lines.
(() => {
  let shownBuild = document.currentScript.dataset.build;
  const CONFIG_ID = "kvpage-config";
  const SCROLL_KEY = "kvpage-serve-scroll";
  let overlay = null;
  let busy = Promise.resolve();

  // When a build fails its errors are shown over the page (as text), and taken away once the book builds
  // again; the page keeps what it runs (the last good model).
  function showErrors(errors) {
    if (overlay === null) {
      overlay = document.createElement("div");
      overlay.setAttribute("role", "alert");
      overlay.setAttribute("aria-label", "Build failed");
      overlay.style.cssText =
        "position:fixed;inset:auto 0 0 0;max-height:60vh;overflow:auto;z-index:2147483647;margin:0;" +
        "padding:1rem 1.2rem;background:#2b0d08;color:#ffd9d0;border-top:4px solid #ff6b4a;" +
        "font:0.9rem/1.45 ui-monospace,Menlo,monospace;white-space:pre-wrap";
      document.body.append(overlay);
    }
    overlay.textContent = `The book did not build; this page is the last good build.\n\n${errors.join("\n")}`;
  }

  function hideErrors() {
    overlay?.remove();
    overlay = null;
  }

  // A reload that comes back to where the reader was.
  function reload() {
    sessionStorage.setItem(SCROLL_KEY, JSON.stringify({ path: location.pathname, x: scrollX, y: scrollY }));
    location.reload();
  }
  const kept = JSON.parse(sessionStorage.getItem(SCROLL_KEY) ?? "null");
  sessionStorage.removeItem(SCROLL_KEY);
  if (kept?.path === location.pathname) {
    const back = () => scrollTo(kept.x, kept.y);
    if (document.readyState === "complete") back();
    else addEventListener("load", back, { once: true });
  }

  async function newPage() {
    const response = await fetch(location.href, { cache: "no-store" });
    if (!response.ok) throw new Error(`${location.pathname}: ${response.status}`);
    return new DOMParser().parseFromString(await response.text(), "text/html");
  }

  const configOf = (doc) => JSON.parse(doc.getElementById(CONFIG_ID)?.textContent ?? "null");
  const shownFiles = (doc) => [...doc.querySelectorAll("figure[data-file]")].map((figure) => figure.dataset.file).join();

  // The new wheel's name, and the new files highlighted, are in the new build's copy of this page (its
  // config, its disclosures), fetched for it. A model edit that changed a lab's schema or which files a
  // disclosure shows reloads instead (false); a model the page's Python cannot import keeps the old one
  // running, with the error over the page.
  async function swapModel() {
    const swap = globalThis.kvpageLabs?.swapModel;
    const old = configOf(document);
    if (!swap || !old?.python) return false; // a page without labs: nothing runs the model
    const fresh = await newPage();
    const config = configOf(fresh);
    if (!config?.python || JSON.stringify(config.labs) !== JSON.stringify(old.labs)) return false;
    if (shownFiles(fresh) !== shownFiles(document)) return false;
    const python = config.python;
    const url = new URL(`${python.index_url}${python.packed[python.wheel]}`, document.baseURI);
    const response = await fetch(url, { cache: "no-store" });
    if (!response.ok) throw new Error(`${url.pathname}: ${response.status}`);
    const wheel = await response.arrayBuffer();
    try {
      await swap(python, wheel, fresh);
    } catch (error) {
      // The build's Python imported it, the page's did not: the old model keeps answering.
      showErrors([`The new model did not start in the page's Python; the last good one still runs:\n${error.message}`]);
      return true;
    }
    hideErrors();
    performance.mark("kvpage:model-swapped");
    return true;
  }

  async function reloadStyles() {
    const fresh = [...(await newPage()).querySelectorAll('link[rel="stylesheet"]')];
    const old = [...document.querySelectorAll('link[rel="stylesheet"]')];
    if (fresh.length !== old.length) return false;
    const stamp = Date.now();
    await Promise.all(
      old.map((link, index) => {
        const next = document.createElement("link");
        next.rel = "stylesheet";
        const href = new URL(fresh[index].getAttribute("href"), document.baseURI);
        href.searchParams.set("serve", String(stamp)); // past the browser's cache of the old one
        next.href = href.href;
        return new Promise((resolve) => {
          next.addEventListener("load", () => (link.remove(), resolve()), { once: true });
          next.addEventListener("error", () => (next.remove(), resolve()), { once: true });
          link.after(next);
        });
      }),
    );
    performance.mark("kvpage:styles-reloaded");
    return true;
  }

  // A newer build, taken in by what changed since the build this page shows (the status's "kind"):
  //   "model"  only kvpage/: the new wheel is swapped into the page's running Python (its workers)
  //            and every lab computed again at its current values and state, and each lab's Python
  //            disclosure shows the new files (a reader's open edit is kept: static/kvpage/disclosure.js);
  //            no reload.
  //   "css"    only stylesheets: the page's stylesheets are loaded again; no reload.
  //   "page"   anything else: the page reloads, at the same scroll position.
  // A page that missed a build (the status's "previous" is not the one it shows) reloads instead.
  async function takeIn(status) {
    const hot = status.previous === shownBuild && (status.kind === "model" || status.kind === "css");
    try {
      if (hot && (await (status.kind === "model" ? swapModel() : reloadStyles()))) {
        shownBuild = status.build;
        if (status.kind === "css") hideErrors();
        return;
      }
    } catch (error) {
      console.error(`kvpage serve: the new ${status.kind} could not be taken in (${error.message}); reloading`);
    }
    events.close();
    reload();
  }

  const events = new EventSource("/__kvpage/events");
  events.addEventListener("status", (event) => {
    const status = JSON.parse(event.data);
    // One at a time: a build that comes while a swap is under way is taken in after it.
    busy = busy.then(() => {
      if (status.build && status.build !== shownBuild) return takeIn(status);
      if (status.ok) hideErrors();
      else showErrors(status.errors);
    });
  });
})();
