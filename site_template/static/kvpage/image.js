// Stage "image" (in Python's worker): our snapshot container → the memory image Pyodide restores.
//
// Pure functions of bytes (no DOM, no globals), so tests/sitegen/runtime/test_snapshot_format.py runs this
// very file under Node against the Python writer. The container's format is specified once, in
// sitegen/runtime/snapshot_format.py; this is its reader.

/** @param {Uint8Array} bytes @param {number} at @returns {[number, number]} */
function leb128(bytes, at) {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = bytes[at];
    at += 1;
    value += (byte & 0x7f) * 2 ** shift;
    if (!(byte & 0x80)) return [value, at];
  }
}

// The wasm's active data segments as [memory offset, start in wasm, length]: the memory a fresh
// instance starts from. The same parser, in Python, is sitegen/runtime/snapshot_format.py data_segments.
/** @param {Uint8Array} wasm @returns {Generator<[number, number, number]>} */
function* dataSegments(wasm) {
  let at = 8;
  while (at < wasm.length) {
    const section = wasm[at];
    let size;
    [size, at] = leb128(wasm, at + 1);
    const end = at + size;
    if (section === 11) {
      let count;
      [count, at] = leb128(wasm, at);
      for (let i = 0; i < count; i += 1) {
        if (wasm[at] !== 0 || wasm[at + 1] !== 0x41) throw new Error("the wasm has an unexpected data segment");
        let offset, length;
        [offset, at] = leb128(wasm, at + 2); // i32.const, non-negative here
        [length, at] = leb128(wasm, at + 1); // after the 0x0b that ends the offset
        yield [offset, at, length];
        at += length;
      }
    }
    at = end;
  }
}

// Writes into `image` (a fresh, zeroed buffer of the size the build recorded) Pyodide's memory snapshot from our
// container (sitegen/runtime/snapshot_format.py): "KVSNAP01", u32 size, u32 heap offset, u32 record
// count, Pyodide's header, then records (u32 offset, u32 length, bytes) that overwrite the
// wasm's initial memory.
/** @param {Uint8Array} image @param {Uint8Array} encoded @param {Uint8Array} wasm */
export function snapshotImage(image, encoded, wasm) {
  const damaged = () => new Error("the Python snapshot is damaged");
  if (encoded.length < 20) throw damaged();
  const view = new DataView(encoded.buffer, encoded.byteOffset, encoded.byteLength);
  const magic = String.fromCharCode(...encoded.subarray(0, 8));
  if (magic !== "KVSNAP01") throw damaged();
  const [size, heapOffset, count] = [8, 12, 16].map((field) => view.getUint32(field, true));
  if (size !== image.length || heapOffset > size || 20 + heapOffset > encoded.length) throw damaged();
  image.set(encoded.subarray(20, 20 + heapOffset));
  const heap = image.subarray(heapOffset);
  for (const [offset, start, length] of dataSegments(wasm)) heap.set(wasm.subarray(start, start + length), offset);
  let at = 20 + heapOffset;
  for (let i = 0; i < count; i += 1) {
    if (at + 8 > encoded.length) throw damaged();
    const offset = view.getUint32(at, true);
    const length = view.getUint32(at + 4, true);
    if (at + 8 + length > encoded.length || offset + length > heap.length) throw damaged();
    heap.set(encoded.subarray(at + 8, at + 8 + length), offset);
    at += 8 + length;
  }
  if (at !== encoded.length) throw damaged();
}
