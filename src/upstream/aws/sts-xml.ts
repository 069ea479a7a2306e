/**
 * The few values the gateway reads from STS's XML answers (awsQuery protocol): the credentials of
 * an AssumeRole / AssumeRoleWithWebIdentity result and the code and message of an error. Not a
 * general XML parser: the answer is bounded (64 KiB) before it gets here, each element is found by
 * its name, the first match wins, and only the five XML entities and numeric references are
 * decoded.
 */

/** The most of an STS answer that is read. */
export const maxStsAnswerBytes = 64 * 1024

/** The text of the first `<name>…</name>` inside `xml`, decoded; `undefined` when absent. */
export function elementText(xml: string, name: string): string | undefined {
  const open = new RegExp(`<${name}(?:\\s[^>]*)?>`).exec(xml)
  if (open === null) return undefined
  const start = open.index + open[0].length
  const end = xml.indexOf(`</${name}>`, start)
  if (end < 0) return undefined
  return decodeEntities(xml.slice(start, end).trim())
}

/** The part of `xml` inside the first `<name>` element, for reading the elements it holds. */
export function elementBody(xml: string, name: string): string | undefined {
  return elementText(xml, name) === undefined ? undefined : sliceOf(xml, name)
}

function sliceOf(xml: string, name: string): string {
  const open = new RegExp(`<${name}(?:\\s[^>]*)?>`).exec(xml)!
  const start = open.index + open[0].length
  return xml.slice(start, xml.indexOf(`</${name}>`, start))
}

const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

function decodeEntities(text: string): string {
  return text.replace(
    /&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|amp|lt|gt|quot|apos);/g,
    (whole, entity: string) => {
      if (entity.startsWith('#x')) return codePoint(Number.parseInt(entity.slice(2), 16), whole)
      if (entity.startsWith('#')) return codePoint(Number.parseInt(entity.slice(1), 10), whole)
      return named[entity] ?? whole // lookup-safe: the pattern allows only the five names
    },
  )
}

function codePoint(value: number, whole: string): string {
  return value <= 0x10ffff ? String.fromCodePoint(value) : whole
}
