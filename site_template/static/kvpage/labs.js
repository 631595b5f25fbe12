// Stage "labs": hand the started Python to the labs.
//
// The labs themselves are wired by static/labs.js (loaded before this script), from what each
// lab's template printed out of its one declaration (kvpage/labs/NAME.py); a lab that draws has
// its own static/labs/NAME.js, registered by name. Every number they show comes back from Python.
//
// Its interface with stage "boot" (boot.js), and nothing else: boot calls startLabs(pyodide) once
// Python is up (a throw counts as a failure), or labsFailed(error) if it could not start; boot then
// sets data-python on <html>, the "kvpage:labs-live" mark and the last "kvpage:progress" event.
// From boot it uses say(text) (the page's runtime line).

// Called by boot once Python is up.
function startLabs(pyodide) {
  globalThis.kvpageLabs.start(pyodide);
  say("Live: these numbers are computed by kvpage's Python model, running in your browser.");
}

// Called by boot if Python (or startLabs) failed: the labs keep the numbers the build computed.
function labsFailed(error) {
  say(`The labs could not start (${error.message}); the numbers shown were computed when this page was built.`);
}
