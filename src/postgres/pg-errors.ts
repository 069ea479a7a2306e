// What a failed query says about its cause, by its SQLSTATE: the row, or the server.

/** SQLSTATE classes 22 (data exception) and 23 (integrity): the row is at fault, not the server. */
export function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'))
}

/**
 * No SQLSTATE (the driver could not reach the server), or classes 08 (connection), 53 (resources)
 * and 57 (operator intervention, such as a shutdown): the server is unreachable, not unwilling.
 */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true
  return code.startsWith('08') || code.startsWith('53') || code.startsWith('57')
}
