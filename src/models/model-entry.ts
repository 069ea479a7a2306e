import type { PriceOverride } from '../pricing/model-price'
import type { ModelProfileOverrides } from './profile'

/**
 * A model a group serves: the call name clients send, the name its upstreams expect, and the
 * operator's corrections to the built-in profile of that model (limits, reasoning, sampling…).
 */
export type ModelEntry = {
  name: string
  upstreamModel: string
  profile?: ModelProfileOverrides | undefined
  /**
   * Where calls go when this group has no upstream left to try: `<group>/<model>` call names,
   * tried in order, each in its group's protocol (the request translated when it differs).
   */
  fallbacks?: readonly string[] | undefined
  /**
   * The price of this entry's upstream model, merged field by field over the catalogue's (a
   * complete price for a model the catalogue does not know); `false` leaves it unpriced.
   */
  price?: PriceOverride | false | undefined
}
