import { afterEach, beforeEach, expect, vi } from 'vitest'

/** The line the gateway writes (to `console.warn`) when a circuit opens for an upstream or a model. */
export const circuitOpenLine =
  /^\[model-gateway\] upstream \S+(, model "[^"]+")?: circuit open(, its key was .+| for [\d.]+ s \(.+\))\.$/

/**
 * Captures what the gateway writes to `console.warn` during each test of the file that calls this
 * (at its top level), instead of printing it: failover tests open circuits on purpose, and each
 * opening is a line. After each test, every captured line must match one of `expected` (by
 * default a circuit opening): a line of another kind fails the test rather than scrolling by.
 * Returns the current test's lines, for tests that assert on them.
 */
export function captureGatewayWarnings(expected: readonly RegExp[] = [circuitOpenLine]): {
  readonly lines: string[]
} {
  const captured = { lines: [] as string[] }
  let spy: { mockRestore(): void } | undefined
  beforeEach(() => {
    captured.lines = []
    spy = vi.spyOn(console, 'warn').mockImplementation((...parts: unknown[]) => {
      captured.lines.push(parts.map(String).join(' '))
    })
  })
  afterEach(() => {
    spy?.mockRestore()
    const unexpected = captured.lines.filter((line) => !expected.some((shape) => shape.test(line)))
    expect(unexpected, 'console.warn lines of an unexpected kind').toEqual([])
  })
  return captured
}
