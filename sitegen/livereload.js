// Live reload for `build.py serve` (sitegen/serve.py), which adds this script to the pages
// it serves; it is never part of the built site or the zip.
//
// It listens to serve's event stream. When a newer build is ready it reloads the page;
// when a build fails it shows the errors over the page (as text), and takes them away
// once the book builds again. Both the script and the stream come from the page's own
// origin, so the page's Content-Security-Policy allows them as they are.
"use strict";

(() => {
  const shown = document.currentScript.dataset.build;
  let overlay = null;

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

  const events = new EventSource("/__kvpage/events");
  events.addEventListener("status", (event) => {
    const status = JSON.parse(event.data);
    if (status.build && status.build !== shown) {
      events.close();
      location.reload();
    } else if (status.ok) {
      hideErrors();
    } else {
      showErrors(status.errors);
    }
  });
})();
