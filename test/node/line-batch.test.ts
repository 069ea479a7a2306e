import { describe, expect, it } from 'vitest'
import { createLineBatch } from '../../src/node/cli/line-batch'

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

describe('createLineBatch', () => {
  it('writes the lines of one event-loop turn together, one turn later', async () => {
    const writes: string[] = []
    const batch = createLineBatch((text) => writes.push(text))
    batch.write('first')
    batch.write('second')
    expect(writes).toEqual([])
    await nextTurn()
    expect(writes).toEqual(['first\nsecond\n'])
    batch.write('third')
    await nextTurn()
    expect(writes).toEqual(['first\nsecond\n', 'third\n'])
  })

  it('writes what is queued at once on flush, and nothing twice', async () => {
    const writes: string[] = []
    const batch = createLineBatch((text) => writes.push(text))
    batch.write('one')
    batch.flush()
    expect(writes).toEqual(['one\n'])
    batch.flush()
    await nextTurn()
    expect(writes).toEqual(['one\n'])
  })

  it('writes at once when a turn queues more than 64 KiB', () => {
    const writes: string[] = []
    const batch = createLineBatch((text) => writes.push(text))
    const line = 'x'.repeat(1023)
    for (let index = 0; index < 64; index += 1) batch.write(line)
    expect(writes).toHaveLength(1)
    expect(writes[0]).toBe(`${line}\n`.repeat(64))
  })
})
