/**
 * A problem a kind finds in an entry when it builds the upstream (a credential file that is
 * missing or malformed), rather than when its schema checks the entry: the gateway reports it as a
 * config error at the entry's `field` (`groups[0].upstreams[1].serviceAccount: …`).
 */
export class KindEntryError extends Error {
  /** The entry's field at fault, by its path in the entry. */
  readonly field: string

  /**
   * @param field the entry's field at fault, by its path in the entry
   * @param message what is wrong, without the field's value when that is a secret
   */
  constructor(field: string, message: string) {
    super(message)
    this.field = field
    this.name = 'KindEntryError'
  }
}
