import { createMemoryUsageMeter } from '../../src/usage/memory-usage-meter'
import { describeSubjectsContract } from './subjects-contract'

describeSubjectsContract('memory', async () => {
  const meter = createMemoryUsageMeter()
  return { meters: [meter, meter], close: async () => undefined }
})
