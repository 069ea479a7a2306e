import { html } from 'htm/preact'
import { short } from './format'

/** One bar: a label (a day), and the stacked parts of its value. */
export type Bar = { label: string; parts: readonly number[] }

/**
 * A bar chart drawn as SVG: one bar per day, stacked parts (input and output tokens). The numbers
 * are in the page's table too; the chart is a picture of them, named for screen readers.
 */
export function BarChart(props: {
  title: string
  bars: readonly Bar[]
  legend: readonly string[]
  /** How a value reads on the axis and in tooltips (default: a short count). */
  format?: (value: number) => string
}) {
  const format = props.format ?? short
  const width = 720
  const height = 220
  const max = niceCeiling(
    Math.max(...props.bars.map((bar) => bar.parts.reduce((a, b) => a + b, 0))),
  )
  const ticks = [0, max / 2, max]
  const tickText = (value: number) =>
    props.format !== undefined || Number.isInteger(value) ? format(value) : value.toFixed(1)
  // Room on the left for the longest axis label (about 7 units a character at 11px).
  const labelWidth = Math.max(...ticks.map((tick) => tickText(tick).length)) * 7
  const pad = { left: Math.max(40, labelWidth + 12), right: 8, top: 12, bottom: 28 }
  const plotWidth = width - pad.left - pad.right
  const plotHeight = height - pad.top - pad.bottom
  const step = plotWidth / Math.max(1, props.bars.length)
  const barWidth = Math.max(2, step * 0.7)
  const y = (value: number) => pad.top + plotHeight - (value / max) * plotHeight
  const labelEvery = Math.ceil(props.bars.length / 8)
  return html`<figure class="chart">
    <svg viewBox=${`0 0 ${width} ${height}`} role="img" aria-label=${props.title}>
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
            index % labelEvery === 0
              ? html`<text class="label" x=${x + barWidth / 2} y=${height - 8} text-anchor="middle"
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

/** The smallest 1, 2 or 5 × 10ⁿ at or above `value` (at least 10): the chart's top. */
function niceCeiling(value: number): number {
  if (!(value > 10)) return 10
  const power = 10 ** Math.floor(Math.log10(value))
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power
  return 10 * power
}
