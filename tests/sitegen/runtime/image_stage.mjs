// Runs the page's stage "image" (site_template/static/kvpage/image.js, an ES module) under Node, unchanged:
//   node image_stage.mjs CONTAINER WASM SIZE OUT
// writes the memory image snapshotImage builds from CONTAINER into OUT, or exits 1 with its error.
import { readFileSync, writeFileSync } from "node:fs";
import { snapshotImage } from "../../../site_template/static/kvpage/image.js";

const [container, wasm, size, out] = process.argv.slice(2);
const image = new Uint8Array(Number(size));
try {
  snapshotImage(image, new Uint8Array(readFileSync(container)), new Uint8Array(readFileSync(wasm)));
} catch (error) {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
writeFileSync(out, image);
