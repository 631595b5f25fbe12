// What the build generates for the page (sitegen/site/page_script.py fills these in when it bundles):
// the constants it shares with the Python that owns them (the tree vocabulary of kvpage/tree.py,
// the output kinds of kvpage/lab.py, the config's id of sitegen/site/page_script.py), and the text of
// Python's worker, the bundle of worker.js, which stage "spawn" runs as each worker's code.
// Their types are in globals.d.ts.

/** The elements and attributes a lab's drawing may have (kvpage/tree.py). */
export const TREE = KVPAGE_TREE;
/** The output kinds that are texts, not element trees (kvpage/lab.py). */
export const TEXT_KINDS = KVPAGE_TEXT_KINDS;
/** The id of the page's config, a <script type="application/json"> (sitegen.site.assemble.PageConfig). */
export const CONFIG_ID = KVPAGE_CONFIG_ID;
/** How the page counts a text's length, as kvpage/lab.py's TEXT_LENGTH declares: by its name,
 * "code points" (Array.from walks code points, a lone surrogate being one, as Python's len does).
 * tests/sitegen/test_links_stage.py runs links.js with the build's defines: a name this table lacks
 * fails its length tests there. */
export const TEXT_LENGTHS = {
  "code points": (/** @type {string} */ text) => Array.from(text).length,
};
/** The page's count of a text's length, the one kvpage.lab.Text.read limits. */
export const textLength = TEXT_LENGTHS[KVPAGE_TEXT_LENGTH];
/** The id of the single file's data block that holds the editor's script (sitegen/site/page_script.py). */
export const READER_ID = KVPAGE_READER_ID;
/** Python's worker: its modules bundled into one classic script (worker.js and what it imports). */
export const WORKER_SCRIPT = KVPAGE_WORKER_SCRIPT;
