// Installed before the page's own scripts (Firefox: a BiDi preload script; WebKit: a user script
// at document start), never shipped in the site. Records what a reader's console would show as
// errors: uncaught errors, failed element loads, unhandled rejections, CSP violations and
// console.error calls. Keeps them in the page (read by the test at the end) and, in the WebKit
// audit browser, also posts each one to the browser process, which logs it.
(() => {
  const key = Symbol.for("kvpage.audit");
  if (window[key]) return;
  const seen = (window[key] = []);
  const report = (text) => {
    seen.push(text);
    const handler = window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.kvpageAudit;
    if (handler) handler.postMessage(text);
  };
  const describe = (value) => {
    try {
      return value instanceof Error ? `${value.name}: ${value.message}` : String(value);
    } catch {
      return "(an unprintable value)";
    }
  };
  // Left (a search result or a link followed) while Python's files still came in, the engine stops
  // their loads, and the page may try a binary's script instead, which fails in turn: no file was
  // missing, the reader had moved on. An element's load that fails once the page is being left is
  // no problem; beforeunload comes before the engine stops anything.
  let leaving = false;
  window.addEventListener("beforeunload", () => (leaving = true));
  window.addEventListener("pagehide", () => (leaving = true));
  window.addEventListener("pageshow", () => (leaving = false)); // back from the back-forward cache
  window.addEventListener(
    "error",
    (event) => {
      if (event instanceof ErrorEvent) report(`uncaught error: ${event.message}`);
      else if (!leaving) report(`failed to load: ${event.target.src || event.target.href || event.target.tagName}`);
    },
    true,
  );
  window.addEventListener("unhandledrejection", (event) => report(`unhandled rejection: ${describe(event.reason)}`));
  document.addEventListener("securitypolicyviolation", (event) =>
    report(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI}`),
  );
  const original = console.error;
  console.error = function (...args) {
    report(`console error: ${args.map(describe).join(" ")}`);
    return original.apply(this, args);
  };
})();
