/**
 * The top-level keys of a JSON object text, decoded (`"mod\u0065l"` is `model`), in order and with
 * duplicates kept. Written independently of the gateway's scanner, one character at a time, so
 * that tests can check what any upstream parser — first-wins or last-wins — would read.
 */
export function topLevelKeys(text: string): string[] {
  const keys: string[] = []
  let depth = 0
  let expectingKey = false
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]
    if (char === '"') {
      let end = index + 1
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1
      if (depth === 1 && expectingKey) {
        keys.push(JSON.parse(text.slice(index, end + 1)) as string)
        expectingKey = false
      }
      index = end
    } else if (char === '{' || char === '[') {
      depth += 1
      if (depth === 1) expectingKey = char === '{'
    } else if (char === '}' || char === ']') {
      depth -= 1
    } else if (char === ',' && depth === 1) {
      expectingKey = true
    }
  }
  return keys
}
