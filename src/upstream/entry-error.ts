/**
 * A problem with an upstream entry found only when its kind builds it (`UpstreamKind.create`): a
 * credential the entry does not give and the runtime cannot supply. The gateway reports it as a
 * config error at the entry's path, `field` appended (`groups[0].upstreams[1].apiKey: …`).
 */
export class UpstreamEntryError extends Error {
  /** The entry's field the problem is about, or `undefined` for the entry as a whole. */
  readonly field: string | undefined

  constructor(message: string, field?: string) {
    super(message)
    this.name = 'UpstreamEntryError'
    this.field = field
  }
}
