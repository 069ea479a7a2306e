/** How often the lag ticker looks at the clock while a store call is pending. */
const tickMs = 10

let pending = 0
let timer: ReturnType<typeof setTimeout> | undefined
let lastTick = 0
/** Milliseconds the ticker came late, summed since the process started watching. */
let lagTotal = 0

function tick(): void {
  const now = Date.now()
  lagTotal += Math.max(0, now - lastTick - tickMs)
  lastTick = now
  timer = pending > 0 ? setTimeout(tick, tickMs) : undefined
}

/** The lag so far, counting a tick that is overdue now. */
function lagNow(): number {
  return lagTotal + Math.max(0, Date.now() - lastTick - tickMs)
}

/**
 * Measures how long this process's event loop was too busy to run a timer, while a store call is
 * pending: a 10 ms ticker runs only while some call is watched, and sums how late it came. The
 * time a call waited for its store is its elapsed time less that lag — the part of the wait in
 * which a reply could have been read. Each watcher must be `done()`; the ticker stops with the
 * last one, so nothing keeps the process alive or wakes it when no call is pending.
 */
export function watchLoopLag(): { lagSince(): number; done(): void } {
  if (pending++ === 0 && timer === undefined) {
    lastTick = Date.now()
    timer = setTimeout(tick, tickMs)
  }
  const start = lagNow()
  let finished = false
  return {
    lagSince: () => lagNow() - start,
    done() {
      if (finished) return
      finished = true
      pending -= 1
      if (pending === 0 && timer !== undefined) {
        clearTimeout(timer)
        timer = undefined
      }
    },
  }
}
