import type { Page } from 'playwright-core'

/**
 * Layout checks run inside the page (each function is serialised by `page.evaluate`, so it uses
 * nothing from this module's scope). Each returns the problems it found, in words, so that a
 * failing test says what collided where.
 */

/** What counts as a card: every box content must stay inside. */
const cardSelector = [
  'header.top',
  'main',
  '.card',
  '.banner',
  '.chart',
  '.code',
  'table',
  'tbody tr',
  '.figures > div',
].join(', ')

/**
 * Every visible element inside a card lies within the card's box (1 px of rounding allowed).
 * Content of a code block may scroll inside it, so what is inside a scrolling box other than the
 * card itself is not checked (the scrolling box is). Elements moved off-screen on purpose (for
 * screen readers only) are skipped.
 */
export function overflowingElements(page: Page): Promise<string[]> {
  return page.evaluate((selector) => {
    const name = (element: Element) => {
      const classes = [...element.classList].map((item) => `.${item}`).join('')
      const label = element.getAttribute('data-label') ?? element.getAttribute('data-snippet')
      const text = (element.textContent ?? '').trim().slice(0, 40)
      return `${element.tagName.toLowerCase()}${classes}${label === null ? '' : `[${label}]`} "${text}"`
    }
    const scrolls = (element: Element) =>
      ['auto', 'scroll', 'hidden'].includes(getComputedStyle(element).overflowX)
    const problems: string[] = []
    for (const card of document.querySelectorAll(selector)) {
      const box = card.getBoundingClientRect()
      if (box.width === 0 || box.right <= 0) continue
      for (const element of card.querySelectorAll('*')) {
        if (element.closest('.offscreen, .skip') !== null) continue
        let scroller = element.parentElement
        while (scroller !== null && scroller !== card && !scrolls(scroller))
          scroller = scroller.parentElement
        if (scroller !== null && scroller !== card) continue
        const rect = element.getBoundingClientRect()
        if (rect.width === 0 || rect.height === 0 || rect.right <= 0) continue
        const out = [
          box.left - rect.left,
          rect.right - box.right,
          box.top - rect.top,
          rect.bottom - box.bottom,
        ].some((by) => by > 1)
        if (out) problems.push(`${name(element)} overflows ${name(card)}`)
      }
    }
    return problems
  }, cardSelector)
}

/**
 * On a phone each table row is a card whose cells carry their column's name as a label (a
 * `::before`): a label must fit in its cell's height, or it runs into the next cell's.
 */
export function collidingLabels(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = []
    for (const cell of document.querySelectorAll('tbody [data-label]')) {
      const label = getComputedStyle(cell, '::before')
      if (label.content === 'none') continue
      const labelHeight = parseFloat(label.height)
      if (Number.isNaN(labelHeight)) continue
      const style = getComputedStyle(cell)
      const room =
        cell.getBoundingClientRect().height -
        parseFloat(style.paddingTop) -
        parseFloat(style.paddingBottom)
      if (labelHeight > room + 1)
        problems.push(
          `label "${cell.getAttribute('data-label')}" (${labelHeight}px) is taller than its cell (${room}px)`,
        )
    }
    return problems
  })
}

/** Dates and other runs kept whole (`time`, `.nowrap`) are on one line each. */
export function brokenRuns(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('time:not(:has(*)), .nowrap')]
      .filter((element) => element.getClientRects().length > 1)
      .map((element) => `"${element.textContent}" is broken across lines`),
  )
}

/** How many lines of text an element's content takes. */
export function lineCounts(page: Page, selector: string): Promise<number[]> {
  return page.evaluate((cells) => {
    return [...document.querySelectorAll(cells)].map((cell) => {
      const range = document.createRange()
      range.selectNodeContents(cell)
      const tops = new Set<number>()
      for (const rect of range.getClientRects()) {
        if (rect.width > 0 && rect.height > 0) tops.add(Math.round(rect.top / 4))
      }
      return tops.size
    })
  }, selector)
}

/**
 * Every chart that draws is scrolled to its end (the latest day in view), and says whether it
 * fits its figure without scrolling.
 */
export function chartPositions(
  page: Page,
): Promise<Array<{ atEnd: boolean; fits: boolean; scrollLeft: number }>> {
  return page.evaluate(() =>
    [...document.querySelectorAll('figure.chart:not(.empty)')].map((figure) => ({
      atEnd: figure.scrollLeft + figure.clientWidth >= figure.scrollWidth - 1,
      fits: figure.scrollWidth <= figure.clientWidth,
      scrollLeft: figure.scrollLeft,
    })),
  )
}

/**
 * For every code block: whether its copy button overlaps the first line of its code, and whether
 * `needle` (a key), where the code holds it, is drawn inside the block's visible box.
 */
export function codeBlockProblems(page: Page, needle: string): Promise<string[]> {
  return page.evaluate((text) => {
    const problems: string[] = []
    const overlaps = (a: DOMRect, b: DOMRect) =>
      a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom
    for (const block of document.querySelectorAll('.code')) {
      const pre = block.querySelector('pre')!
      const node = pre.querySelector('code')!.firstChild
      const button = block.querySelector('button.copy')!.getBoundingClientRect()
      if (node === null || node.nodeType !== Node.TEXT_NODE) continue
      const code = node.textContent ?? ''
      const range = document.createRange()
      const firstLineEnd = code.indexOf('\n') === -1 ? code.length : code.indexOf('\n')
      range.setStart(node, 0)
      range.setEnd(node, firstLineEnd)
      const label = pre.getAttribute('aria-label')
      if ([...range.getClientRects()].some((rect) => overlaps(rect, button)))
        problems.push(`the copy button covers the first line of "${label}"`)
      const at = code.indexOf(text)
      if (at === -1) continue
      range.setStart(node, at)
      range.setEnd(node, at + text.length)
      const visible = pre.getBoundingClientRect()
      const hidden = [...range.getClientRects()].some(
        (rect) =>
          rect.left < visible.left - 1 ||
          rect.right > visible.right + 1 ||
          rect.top < visible.top - 1 ||
          rect.bottom > visible.bottom + 1,
      )
      if (hidden) problems.push(`the key is off-screen in "${label}"`)
    }
    return problems
  }, needle)
}
