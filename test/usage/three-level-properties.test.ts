import { createMemoryUsageMeter } from '../../src/index'
import { describeLevelProperties } from './level-properties'

// On the memory meter: one synchronous loop over every level.
describeLevelProperties(
  'memory',
  async () => ({ meter: createMemoryUsageMeter(), close: async () => undefined }),
  150,
)
