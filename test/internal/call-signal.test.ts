import { describe, expect, it } from 'vitest'
import { createLightAbort } from '../../src/internal/call-signal'

describe('createLightAbort', () => {
  it('runs each listener once, in order, with the reason set; none added after it fired', () => {
    const abort = createLightAbort()
    const calls: string[] = []
    const removed = () => calls.push('removed')
    abort.signal.addEventListener('abort', () => calls.push(`first ${String(abort.signal.reason)}`))
    abort.signal.addEventListener('abort', removed)
    abort.signal.addEventListener('abort', () => calls.push('second'), { once: true })
    abort.signal.removeEventListener('abort', removed)
    expect(abort.signal.aborted).toBe(false)
    abort.abort('why')
    abort.abort('again')
    abort.signal.addEventListener('abort', () => calls.push('late'))
    expect(abort.signal.aborted).toBe(true)
    expect(abort.signal.reason).toBe('why')
    expect(calls).toEqual(['first why', 'second'])
  })

  it('builds a real AbortSignal only when asked, which follows the light one', () => {
    const before = createLightAbort()
    const web = before.webSignal()
    expect(web).toBeInstanceOf(AbortSignal)
    expect(before.webSignal()).toBe(web)
    const reason = new DOMException('Upstream call ended: client', 'AbortError')
    before.abort(reason)
    expect(web.aborted).toBe(true)
    expect(web.reason).toBe(reason)

    const after = createLightAbort()
    after.abort(reason)
    expect(after.webSignal().aborted).toBe(true)
    expect(after.webSignal().reason).toBe(reason)
  })

  it('runs every listener even when one throws, and reports the error on its own', async () => {
    const abort = createLightAbort()
    const reported: unknown[] = []
    const onError = (error: unknown) => reported.push(error)
    process.on('uncaughtException', onError)
    try {
      let ran = false
      abort.signal.addEventListener('abort', () => {
        throw new Error('listener failed')
      })
      abort.signal.addEventListener('abort', () => (ran = true))
      abort.abort('why')
      expect(ran).toBe(true)
      await new Promise((resolve) => setImmediate(resolve))
      expect(reported).toEqual([new Error('listener failed')])
    } finally {
      process.off('uncaughtException', onError)
    }
  })
})
