#!/usr/bin/python3
"""A WebKitGTK browser for WebKitWebDriver that also tells the tests what the page complained about.

WebKitWebDriver has no BiDi, so nothing reports console messages or requests to the test. This
browser, started by WebKitWebDriver in place of MiniBrowser (``webkitgtk:browserOptions.binary``),
is the same engine (libwebkit2gtk-4.1, the system's) with two observers, neither in the site:

- ``capture.js`` as a user script at document start, in every frame, before the page's own
  scripts: uncaught errors, failed element loads, unhandled rejections, CSP violations and
  console.error, each posted to this process;
- the engine's own ``resource-load-started`` signal: every request the page makes, and each
  one that fails or that the engine cancels (the page left while it loaded).

Each event is one JSON line appended to the file given by ``--audit-log=PATH``. It runs under the
system Python (PyGObject and WebKit's GObject introspection come from Debian packages), not the venv.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
from gi.repository import GLib, Gtk, WebKit2  # noqa: E402

CAPTURE = (Path(__file__).parent / "capture.js").read_text(encoding="utf-8")
CANCELLED = int(WebKit2.NetworkError.CANCELLED)
"""WebKit's code for a load it stopped itself (WEBKIT_NETWORK_ERROR_CANCELLED)."""
LONGEST = 2_000
"""The most of a URL the log keeps (the audit checks where a request goes: its start)."""


def main(argv: list[str]) -> int:
    if "--automation" not in argv:
        print("webkit_browser.py is started by WebKitWebDriver (with --automation)", file=sys.stderr)
        return 2
    logs = [arg.removeprefix("--audit-log=") for arg in argv if arg.startswith("--audit-log=")]
    if len(logs) != 1:
        print("webkit_browser.py needs --audit-log=PATH", file=sys.stderr)
        return 2
    log = open(logs[0], "a", encoding="utf-8", buffering=1)  # noqa: SIM115 - open for the process's life

    def record(kind: str, text: str, page: str | None) -> None:
        # URLs cut short: a page opened with a fragment of 100,000 characters (a hostile lab link,
        # tests/browsers/flows.py) would put it in every line, and the tests read the log often.
        cut = (text if len(text) <= LONGEST else text[:LONGEST] + "…", None if page is None else page[:LONGEST])
        log.write(json.dumps({"kind": kind, "text": cut[0], "page": cut[1]}) + "\n")

    Gtk.init([])
    context = WebKit2.WebContext.get_default()
    context.set_automation_allowed(True)
    content = WebKit2.UserContentManager()
    content.add_script(
        WebKit2.UserScript.new(
            CAPTURE,
            WebKit2.UserContentInjectedFrames.ALL_FRAMES,
            WebKit2.UserScriptInjectionTime.START,
            None,
            None,
        )
    )
    content.register_script_message_handler("kvpageAudit")
    windows: list[Gtk.Window] = []

    def on_message(_manager: WebKit2.UserContentManager, result: WebKit2.JavascriptResult) -> None:
        record("page", result.get_js_value().to_string(), None)

    content.connect("script-message-received::kvpageAudit", on_message)

    def on_resource(view: WebKit2.WebView, resource: WebKit2.WebResource, request: WebKit2.URIRequest) -> None:
        record("request", request.get_uri(), view.get_uri())
        resource.connect("failed", on_failed)

    def on_failed(resource: WebKit2.WebResource, error: GLib.Error) -> None:
        # A load the engine stopped (the page was left, or a worker ended, while it was under way)
        # is logged as "cancelled": nothing was missing. Every other failure is "failed".
        if error.domain == GLib.quark_to_string(WebKit2.network_error_quark()) and error.code == CANCELLED:
            record("cancelled", resource.get_uri(), None)
        else:
            record("failed", f"{resource.get_uri()} ({error.message})", None)

    def create_view(_session: WebKit2.AutomationSession) -> WebKit2.WebView:
        view = WebKit2.WebView(web_context=context, user_content_manager=content, is_controlled_by_automation=True)
        view.connect("resource-load-started", on_resource)
        window = Gtk.Window()
        window.set_default_size(1280, 900)
        window.add(view)
        window.show_all()
        windows.append(window)

        def on_close(_view: WebKit2.WebView) -> None:
            windows.remove(window)
            window.destroy()
            if not windows:
                Gtk.main_quit()

        view.connect("close", on_close)
        return view

    def on_automation(_context: WebKit2.WebContext, session: WebKit2.AutomationSession) -> None:
        info = WebKit2.ApplicationInfo.new()
        info.set_name("kvpage-webkit-audit")
        info.set_version(WebKit2.get_major_version(), WebKit2.get_minor_version(), WebKit2.get_micro_version())
        session.set_application_info(info)
        session.connect("create-web-view", create_view)

    context.connect("automation-started", on_automation)
    Gtk.main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
