// Stage "url": the page's URL kept to the labs' state, and a lab's link copied. Browsers refuse a
// flood of replaceState (Safari throws past 100 in 30 s; Chromium ignores past 200 in 10 s), so the
// writes are a token bucket under both, and a write that waits or is refused goes later, never lost.

const WRITE_MS = 200; // the URL follows a lab still busy (or a script's steps) at most this often
const WRITES_AT_ONCE = 10; // URL writes the page may make in a burst,
const WRITE_EVERY_MS = 350; // and then one this often: 10 + 30 s / 350 ms = 95, under Safari's 100 in 30 s
const REFUSED_MS = 1000; // a replaceState the browser refused is tried again after this long
const COPIED = "Link copied.";
const COPY_BY_HAND = "The link is selected: press Ctrl+C (⌘C on a Mac) to copy it.";

/**
 * The page's URL kept to `address()` (what it should be now): the returned drawn(settled) is called
 * after a lab draws a view; settled (the answer to the reader's input, nothing more waiting), the URL
 * is written at once (a reload right after keeps it), else within WRITE_MS.
 * @param {() => string} address
 * @returns {(settled?: boolean) => void}
 */
export function urlWriter(address) {
  /** @type {ReturnType<typeof setTimeout> | undefined} the timer of the next write */
  let writing;
  let allowed = WRITES_AT_ONCE; // writes the page may make now, as of `filled`
  let filled = performance.now();
  // How long until a write may go (0: now).
  function waitToWrite() {
    const now = performance.now();
    allowed = Math.min(WRITES_AT_ONCE, allowed + (now - filled) / WRITE_EVERY_MS);
    filled = now;
    return allowed >= 1 ? 0 : (1 - allowed) * WRITE_EVERY_MS;
  }
  function write() {
    clearTimeout(writing);
    writing = undefined;
    const url = address();
    if (url === location.href) return;
    const wait = waitToWrite();
    if (wait > 0) {
      writing = setTimeout(write, wait);
      return;
    }
    try {
      history.replaceState(history.state, "", url);
      allowed -= 1;
    } catch (error) {
      // Too many calls (Safari's limit) or an opaque page: the labs work on, and the URL is tried again.
      console.info("kvpage: the browser refused to update the URL; it is tried again:", error);
      writing = setTimeout(write, REFUSED_MS);
    }
  }
  return (settled = false) => {
    if (settled) write();
    else writing ??= setTimeout(write, WRITE_MS);
  };
}

/** The copy command's fallback where the clipboard API is refused: whether it copied `field`'s selection. @param {HTMLInputElement} field */
function copiedByCommand(field) {
  try {
    field.select();
    return document.execCommand("copy");
  } catch (error) {
    console.info("kvpage: the copy command failed; the reader copies the link by hand:", error);
    return false;
  }
}

/**
 * "Copy link": `link` goes into the field (shown, and selected, so it can be copied by hand where the
 * page may not write the clipboard, such as from a file), then to the clipboard; `status` says which.
 * @param {HTMLInputElement} field @param {Element} status @param {string} link
 */
export async function copyLink(field, status, link) {
  field.value = link;
  if (field.parentElement) field.parentElement.hidden = false;
  field.focus();
  field.select();
  if (status.textContent !== "") status.textContent = "";
  try {
    await navigator.clipboard.writeText(field.value);
    status.textContent = COPIED;
  } catch (error) {
    console.info("kvpage: the clipboard refused the link:", error);
    status.textContent = copiedByCommand(field) ? COPIED : COPY_BY_HAND;
  }
}
