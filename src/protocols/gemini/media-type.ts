/** Media types by file extension, for URLs that carry no type of their own. */
const byExtension = new Map([
  ['jpg', 'image/jpeg'],
  ['jpeg', 'image/jpeg'],
  ['png', 'image/png'],
  ['gif', 'image/gif'],
  ['webp', 'image/webp'],
  ['heic', 'image/heic'],
  ['heif', 'image/heif'],
  ['pdf', 'application/pdf'],
  ['txt', 'text/plain'],
])

/**
 * The media type a URL's file extension suggests, or `undefined`. Gemini's `fileData` requires a
 * `mimeType`, which OpenAI and Anthropic image URLs do not carry (CNT-02).
 *
 * @see https://ai.google.dev/api/caching#FileData
 */
export function mediaTypeFromUrl(url: string): string | undefined {
  let path = url
  try {
    path = new URL(url).pathname
  } catch {
    // Not an absolute URL: read the extension off the text itself.
  }
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase()
  return extension === undefined ? undefined : byExtension.get(extension)
}
