/**
 * CRC-32 (IEEE 802.3, the zlib one: reflected polynomial 0xEDB88320) of a byte range, which AWS's
 * event-stream frames carry twice (prelude and message). A 256-entry table, built once on first
 * use: `crc32("123456789")` is `0xCBF43926`.
 *
 * @module
 */

let table: Uint32Array | undefined

function buildTable(): Uint32Array {
  const built = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    built[n] = c >>> 0
  }
  return built
}

/** The CRC-32 of `bytes[start..end)`, as an unsigned 32-bit number. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  const lookup = (table ??= buildTable())
  let crc = 0xffffffff
  for (let at = start; at < end; at++) crc = lookup[(crc ^ bytes[at]!) & 0xff]! ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}
