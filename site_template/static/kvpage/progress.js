// What every loader (this page's, or bench's stock one) reports through: the page's runtime line
// and the "kvpage:progress" events on `document`, {phase: "downloading" | "starting" | "ready" |
// "failed", loaded, total} in bytes (of what the first worker waits for). Once the labs are live or
// have failed (settle, stage "boot"), each lab's line is its own (labs.js): a download still
// arriving for a later worker must not write over it.

let settled = false;

/** The page's runtime line says `text`, until the labs have settled. @param {string} text */
export function say(text) {
  if (settled) return;
  for (const line of document.querySelectorAll("[data-role=runtime]")) line.textContent = text;
}

/** The labs are live, or have failed: say() writes nothing from now on. */
export function settle() {
  settled = true;
}

let lastProgress = { loaded: 0, total: 0 };

/**
 * A "kvpage:progress" event: `phase`, and the bytes loaded of the total (the last ones if not given).
 * @param {"downloading" | "starting" | "ready" | "failed"} phase
 */
export function progress(phase, loaded = lastProgress.loaded, total = lastProgress.total) {
  lastProgress = { loaded, total };
  document.dispatchEvent(new CustomEvent("kvpage:progress", { detail: { phase, loaded, total } }));
}
