/** One sample line. */
export type Sample = { name: string; labels: Record<string, string>; value: number }
/** One metric family: its `# TYPE`, `# HELP` and samples. */
export type Family = { type: string; help: string; samples: Sample[] }

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/

/**
 * A strict reader of the Prometheus text format 0.0.4 (prometheus.io, "Exposition formats"): every
 * line a comment (`# HELP`, `# TYPE`) or a sample; `# TYPE` once per family, before its samples;
 * samples of a histogram named `_bucket` (with `le`), `_sum` and `_count`; label values escaped
 * with `\\`, `\"` and `\n` only; values as Go's ParseFloat reads them. Checks each histogram's
 * buckets are cumulative, sorted and end at `+Inf` equal to `_count`. Throws on any deviation.
 */
export function readExposition(text: string): Map<string, Family> {
  if (text !== '' && !text.endsWith('\n')) throw new Error('the text must end with a line feed')
  const families = new Map<string, Family>()
  let current: string | undefined
  for (const line of text.split('\n').slice(0, -1)) {
    const comment = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line)
    if (comment !== null) {
      const [, kind, name, rest] = comment as unknown as [string, string, string, string]
      if (!metricName.test(name)) throw new Error(`bad metric name ${name}`)
      let family = families.get(name)
      if (family === undefined) {
        if (current !== name && [...families.keys()].includes(name))
          throw new Error(`${name} split`)
        families.set(name, (family = { type: 'untyped', help: '', samples: [] }))
      }
      if (kind === 'TYPE') {
        if (family.samples.length > 0) throw new Error(`TYPE of ${name} after its samples`)
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest))
          throw new Error(`bad type ${rest}`)
        family.type = rest
      } else {
        if (/\\[^\\n]/.test(rest.replaceAll('\\\\', '')))
          throw new Error(`bad HELP escape: ${rest}`)
        family.help = rest.replaceAll('\\n', '\n').replaceAll('\\\\', '\\')
      }
      current = name
      continue
    }
    if (line.startsWith('#') || line === '') throw new Error(`unexpected line: ${line}`)
    const sample = readSample(line)
    const family = familyOf(families, sample.name)
    if (family === undefined) throw new Error(`sample ${sample.name} has no # TYPE`)
    family.samples.push(sample)
  }
  for (const [name, family] of families)
    if (family.type === 'histogram') checkHistogram(name, family)
  return families
}

function familyOf(families: Map<string, Family>, name: string): Family | undefined {
  const own = families.get(name)
  if (own !== undefined && own.type !== 'histogram') return own
  const base = /^(.*)_(bucket|sum|count)$/.exec(name)?.[1]
  const histogram = base === undefined ? undefined : families.get(base)
  return histogram?.type === 'histogram' ? histogram : undefined
}

function readSample(line: string): Sample {
  const head = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line)
  if (head === null) throw new Error(`bad sample: ${line}`)
  const name = head[1]!
  let index = name.length
  const labels: Record<string, string> = {}
  if (line[index] === '{') {
    index += 1
    while (line[index] !== '}') {
      const label = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(index))
      if (label === null || !labelName.test(label[1]!)) throw new Error(`bad label in ${line}`)
      index += label[0].length
      let value = ''
      for (;;) {
        const character = line[index]
        if (character === undefined) throw new Error(`unterminated label value in ${line}`)
        index += 1
        if (character === '"') break
        if (character === '\\') {
          const escaped = line[index]
          index += 1
          if (escaped === '\\') value += '\\'
          else if (escaped === '"') value += '"'
          else if (escaped === 'n') value += '\n'
          else throw new Error(`bad escape \\${escaped} in ${line}`)
        } else value += character
      }
      if (label[1]! in labels) throw new Error(`label ${label[1]} twice in ${line}`)
      labels[label[1]!] = value
      if (line[index] === ',') index += 1
      else if (line[index] !== '}') throw new Error(`expected , or } in ${line}`)
    }
    index += 1
  }
  const rest = line.slice(index)
  const value = /^ (\S+)$/.exec(rest)?.[1]
  if (value === undefined) throw new Error(`bad value in ${line}`)
  return { name, labels, value: parseValue(value) }
}

function parseValue(text: string): number {
  if (text === '+Inf') return Infinity
  if (text === '-Inf') return -Infinity
  if (text === 'NaN') return NaN
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`bad number ${text}`)
  return Number(text)
}

function checkHistogram(name: string, family: Family): void {
  const series = new Map<string, { buckets: [number, number][]; sum?: number; count?: number }>()
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels
    const key = JSON.stringify(Object.entries(rest).sort())
    let entry = series.get(key)
    if (entry === undefined) series.set(key, (entry = { buckets: [] }))
    if (sample.name === `${name}_bucket`) {
      if (le === undefined) throw new Error(`${name}_bucket without le`)
      entry.buckets.push([parseValue(le), sample.value])
    } else if (sample.name === `${name}_sum`) entry.sum = sample.value
    else if (sample.name === `${name}_count`) entry.count = sample.value
    else throw new Error(`${sample.name} in histogram ${name}`)
  }
  for (const entry of series.values()) {
    const bounds = entry.buckets.map(([bound]) => bound)
    if (bounds.at(-1) !== Infinity) throw new Error(`${name}: no +Inf bucket`)
    for (let index = 1; index < entry.buckets.length; index += 1) {
      if (bounds[index]! <= bounds[index - 1]!) throw new Error(`${name}: buckets out of order`)
      if (entry.buckets[index]![1] < entry.buckets[index - 1]![1])
        throw new Error(`${name}: buckets not cumulative`)
    }
    if (entry.count !== entry.buckets.at(-1)![1]) throw new Error(`${name}: +Inf ≠ _count`)
    if (entry.sum === undefined) throw new Error(`${name}: no _sum`)
  }
}

/** A histogram's series: labels (without `le`), bucket bounds, count and sum. */
export function histogramSeries(family: Family, name: string) {
  const series = new Map<
    string,
    { labels: Record<string, string>; bounds: number[]; count: number; sum: number }
  >()
  for (const sample of family.samples) {
    const { le, ...labels } = sample.labels
    const key = JSON.stringify(Object.entries(labels).sort())
    let entry = series.get(key)
    if (entry === undefined) series.set(key, (entry = { labels, bounds: [], count: 0, sum: 0 }))
    if (sample.name === `${name}_bucket` && le !== '+Inf') entry.bounds.push(Number(le))
    if (sample.name === `${name}_count`) entry.count = sample.value
    if (sample.name === `${name}_sum`) entry.sum = sample.value
  }
  return [...series.values()]
}
