import { html } from 'htm/preact'
import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import { short } from './format'

/** One bar: a label (a day), and the stacked parts of its value. */
export type Bar = { label: string; parts: readonly number[] }

/** The drawing's width before the figure is measured (and where no ResizeObserver exists). */
const defaultWidth = 720
/** Bars stay at least this far apart: past that the chart scrolls (inside itself) rather than shrinks. */
const minStep = 3
/** Room one day's label (`11-28` at 11px) takes, with a gap. */
const labelRoom = 44

/**
 * A bar chart drawn as SVG: one bar per day, stacked parts (input and output tokens). The numbers
 * are in the page's table too; the chart is a picture of them, named for screen readers.
 *
 * It is drawn at the width its figure has (measured), so that its text stays at its size on a
 * phone and its days fit; where they cannot (many days on a narrow screen) it scrolls inside its
 * figure and opens at its end, the latest day. With every value zero it draws no axis: it says
 * `empty` instead (a zero axis with no bars reads as a broken chart).
 */
export function BarChart(props: {
  title: string
  bars: readonly Bar[]
  legend: readonly string[]
  /** What the chart says instead of drawing, when every value is zero. */
  empty: string
  /** How a value reads on the axis and in tooltips (default: a short count). */
  format?: (value: number) => string
}) {
  const figure = useRef<HTMLElement>(null)
  const [measured, setMeasured] = useState(0)
  useLayoutEffect(() => {
    const element = figure.current
    if (element === null || typeof ResizeObserver !== 'function') return
    const measure = () => setMeasured(element.clientWidth - paddingOf(element))
    measure()
    const observer = new ResizeObserver(measure)
    observer.observe(element)
    return () => observer.disconnect()
  }, [])
  const totals = props.bars.map((bar) => bar.parts.reduce((a, b) => a + b, 0))
  const highest = Math.max(0, ...totals)
  // After every drawing, the latest day is in view: a chart that scrolls opens at its end.
  useLayoutEffect(() => {
    const element = figure.current
    if (element !== null) element.scrollLeft = element.scrollWidth
  })
  if (!(highest > 0)) {
    return html`<figure class="chart empty" ref=${figure} aria-label=${props.title}>
      <p class="muted" data-testid="chart-empty">${props.empty}</p>
    </figure>`
  }
  const format = props.format ?? short
  const max = niceCeiling(highest)
  const ticks = [0, max / 2, max]
  const tickText = (value: number) =>
    props.format !== undefined || Number.isInteger(value) ? format(value) : value.toFixed(1)
  // Room on the left for the longest axis label (about 7 units a character at 11px).
  const labelWidth = Math.max(...ticks.map((tick) => tickText(tick).length)) * 7
  const pad = { left: Math.max(40, labelWidth + 12), right: 8, top: 12, bottom: 28 }
  const count = Math.max(1, props.bars.length)
  const available = measured > 0 ? measured : defaultWidth
  const width = Math.max(available, pad.left + pad.right + count * minStep)
  const height = 220
  const plotWidth = width - pad.left - pad.right
  const plotHeight = height - pad.top - pad.bottom
  const step = plotWidth / count
  const barWidth = Math.max(2, step * 0.7)
  const y = (value: number) => pad.top + plotHeight - (value / max) * plotHeight
  const labelEvery = Math.max(1, Math.ceil(count / Math.max(1, Math.floor(plotWidth / labelRoom))))
  // The latest day always has its label; the others every `labelEvery` days back from it.
  const labelled = (index: number) => (count - 1 - index) % labelEvery === 0
  return html`<figure class="chart" ref=${figure}>
    <svg
      viewBox=${`0 0 ${width} ${height}`}
      width=${width}
      height=${height}
      role="img"
      aria-label=${props.title}
    >
      <title>${props.title}</title>
      ${ticks.map(
        (tick) =>
          html`<g class="tick">
            <line x1=${pad.left} x2=${width - pad.right} y1=${y(tick)} y2=${y(tick)} />
            <text x=${pad.left - 6} y=${y(tick) + 4} text-anchor="end">${tickText(tick)}</text>
          </g>`,
      )}
      ${props.bars.map((bar, index) => {
        let base = 0
        const x = pad.left + index * step + (step - barWidth) / 2
        return html`<g class="bar">
          ${bar.parts.map((part, partIndex) => {
            const top = y(base + part)
            const rect = html`<rect
              class=${`part${partIndex}`}
              x=${x}
              width=${barWidth}
              y=${top}
              height=${Math.max(0, y(base) - top)}
            >
              <title>${bar.label}: ${format(part)} ${props.legend[partIndex] ?? ''}</title>
            </rect>`
            base += part
            return rect
          })}
          ${
            labelled(index)
              ? html`<text
                  class="label"
                  x=${Math.min(x + barWidth / 2, width - 16)}
                  y=${height - 8}
                  text-anchor="middle"
                  >${bar.label.slice(5)}</text
                >`
              : null
          }
        </g>`
      })}
    </svg>
    <figcaption>
      ${props.legend.map((name, index) => html`<span class=${`key part${index}`}>${name}</span>`)}
    </figcaption>
  </figure>`
}

/** The horizontal padding of an element: what its drawing cannot use of its width. */
function paddingOf(element: HTMLElement): number {
  const style = getComputedStyle(element)
  return (parseFloat(style.paddingLeft) || 0) + (parseFloat(style.paddingRight) || 0)
}

/** The smallest 1, 2 or 5 × 10ⁿ at or above `value` (at least 10): the chart's top. */
function niceCeiling(value: number): number {
  if (!(value > 10)) return 10
  const power = 10 ** Math.floor(Math.log10(value))
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power
  return 10 * power
}
