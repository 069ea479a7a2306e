import type { Readable } from 'node:stream'
import { isJsonObject, parseJson } from '../../internal/json'

/**
 * Reads newline-delimited JSON-RPC messages from a stdio server's stdout. A line longer than
 * `maxBytes` is never buffered whole: `tooLong` is called once and reading stops. A line that is
 * not a JSON object (a server that logs to stdout, which MCP forbids) is skipped.
 */
export function readLines(
  stream: Readable,
  maxBytes: number,
  handlers: { line(message: Record<string, unknown>): void; tooLong(): void },
): void {
  let parts: Buffer[] = []
  let size = 0
  let stopped = false
  const emit = (bytes: Buffer) => {
    const parsed = parseJson(bytes.toString('utf8'))
    if (parsed.ok && isJsonObject(parsed.value)) handlers.line(parsed.value)
  }
  stream.on('data', (chunk: Buffer) => {
    if (stopped) return
    let start = 0
    for (;;) {
      const newline = chunk.indexOf(10, start)
      const end = newline === -1 ? chunk.length : newline
      size += end - start
      if (size > maxBytes) {
        stopped = true
        parts = []
        stream.destroy()
        handlers.tooLong()
        return
      }
      if (newline === -1) {
        if (end > start) parts.push(chunk.subarray(start))
        return
      }
      parts.push(chunk.subarray(start, newline))
      const line = parts.length === 1 ? parts[0]! : Buffer.concat(parts)
      parts = []
      size = 0
      start = newline + 1
      if (line.length > 0) emit(line)
    }
  })
}
