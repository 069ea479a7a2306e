import { readFile } from 'node:fs/promises'
import { jsonErrorOffset } from './json-error-offset'

/** A config file the CLI cannot read, or that is not JSON; its message is ready to print. */
export class ConfigFileError extends Error {
  override name = 'ConfigFileError'
}

/**
 * Reads a JSON config file. A syntax error names the file, line and column the way editors and
 * terminals link them (`gateway.config.json:12:7`), and shows the line with a caret under the
 * place. A leading byte order mark (some Windows editors write one) is skipped.
 *
 * @throws ConfigFileError when the file cannot be read or is not JSON
 */
export async function readConfigFile(path: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new ConfigFileError(`cannot read ${path}: ${(error as Error).message}`)
  }
  return parseConfigText(text, path)
}

/**
 * Parses a config file's text (see `readConfigFile`).
 *
 * @throws ConfigFileError when it is not JSON
 */
export function parseConfigText(text: string, path: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  try {
    return JSON.parse(body)
  } catch (error) {
    // lookup-safe: JSON.parse throws only SyntaxError (and RangeError on a runaway nesting)
    const offset = jsonErrorOffset(body) ?? body.length
    throw new ConfigFileError(syntaxErrorMessage(body, offset, (error as Error).message, path))
  }
}

function syntaxErrorMessage(text: string, offset: number, reason: string, path: string): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1
  const lineEnd = text.indexOf('\n', offset)
  const line = text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd).replace(/\r$/, '')
  const lineNumber = countLines(text, lineStart)
  const column = offset - lineStart + 1
  const what = reason
    // V8 names the place itself, differently across versions: it is given here as line:column.
    .replace(/ in JSON at position \d+.*$/s, '')
    .replace(/, (\.\.\.)?".*" is not valid JSON$/s, '')
  return `${path}:${lineNumber}:${column}: invalid JSON: ${what}${hint(text, offset)}\n${frame(line, lineNumber, column)}`
}

/** The usual reasons a hand-written config is not JSON. */
function hint(text: string, offset: number): string {
  const char = text[offset]
  if (char === '/' && (text[offset + 1] === '/' || text[offset + 1] === '*'))
    return ' (JSON has no comments)'
  if (char === "'") return ' (JSON strings take double quotes)'
  if ((char === '}' || char === ']') && /,\s*$/.test(text.slice(0, offset)))
    return ' (JSON allows no comma after the last item)'
  return ''
}

/** The line, cut to about 100 characters around the column, with a caret under the column. */
function frame(line: string, lineNumber: number, column: number): string {
  const width = 100
  let shown = line
  let caret = column - 1
  if (line.length > width) {
    const start = Math.max(0, Math.min(caret - width / 2, line.length - width))
    shown = `${start > 0 ? '…' : ''}${line.slice(start, start + width)}${start + width < line.length ? '…' : ''}`
    caret = caret - start + (start > 0 ? 1 : 0)
  }
  const gutter = String(lineNumber)
  // Tabs stay tabs under the line, so that the caret lines up whatever the tab width.
  const pad = shown.slice(0, caret).replace(/[^\t]/g, ' ')
  return `  ${gutter} | ${shown}\n  ${' '.repeat(gutter.length)} | ${pad}^`
}

function countLines(text: string, end: number): number {
  let lines = 1
  for (
    let index = text.indexOf('\n');
    index >= 0 && index < end;
    index = text.indexOf('\n', index + 1)
  )
    lines += 1
  return lines
}
