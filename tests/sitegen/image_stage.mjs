// Runs the page's stage "image" (site_template/static/kvpage/image.js) under Node, unchanged:
//   node image_stage.mjs CONTAINER WASM SIZE OUT
// writes the memory image snapshotImage builds from CONTAINER into OUT, or exits 1 with its error.
import { readFileSync, writeFileSync } from "node:fs";

const [container, wasm, size, out] = process.argv.slice(2);
const source = readFileSync(new URL("../../site_template/static/kvpage/image.js", import.meta.url), "utf8");
const { snapshotImage } = new Function(`"use strict";\n${source}\nreturn { snapshotImage };`)();
const image = new Uint8Array(Number(size));
try {
  snapshotImage(image, new Uint8Array(readFileSync(container)), new Uint8Array(readFileSync(wasm)));
} catch (error) {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
writeFileSync(out, image);
