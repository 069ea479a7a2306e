import { heldBudgetRetryMs } from '../../usage/budget-admission'
import { defineRedisScript } from '../redis-script'
import { usagePrelude } from './usage-prelude'

/**
 * Reserve: checks every configured limit and, only if all pass, holds the request's share of each
 * (all or nothing). Reply: `{1, status…}` granted; `{0, now, limit index, wait ms, …}` refused
 * (indices 1–3 windows, 4 concurrency, 5–7 day, month, lifetime budget spent, 8–10 the same
 * budgets held by requests in flight; wait -1 = never);
 * `{2, now, budget kind…}` budgets to seed first; `{3, now}` the id was already settled.
 */
const reserveBody = `
local HELD_WAIT = ${heldBudgetRetryMs}
prune()
if redis.call('ZSCORE', KEYS[1], id) then
  -- The same reservation again (a retry after a timeout): granted, nothing held twice.
  local budgets = read_budgets()
  return { 1, unpack(status(budgets)) }
end
if redis.call('ZSCORE', KEYS[3], id) then return { 3, now } end
local budgets, missing = read_budgets()
if #missing > 0 then return { 2, now, unpack(missing) } end
local refusals = {}
local function refuse(index, wait)
  refusals[#refusals + 1] = index
  refusals[#refusals + 1] = wait
end
local live = limits[4] > 0 and live_count() or 0
if limits[4] > 0 and live >= limits[4] then refuse(4, 1000) end
local units = { 1, est_in, est_out }
local debits, levels = { 0, 0, 0 }, {}
for w = 1, 3 do
  local limit = limits[w]
  if limit > 0 then
    local level = bucket_level(KEYS[3 + w], limit)
    local cost = math.min(units[w], limit) * W
    if level < cost then
      refuse(w, math.ceil((cost - level) / limit))
    else
      debits[w], levels[w] = cost, level
    end
  end
end
local total = est_in + est_out
local holds = { 0, 0, 0 }
-- The budget rule of admitOnBudget (src/usage/budget-admission.ts): the whole estimate when it
-- fits, the remainder when nothing else is in flight, else a short wait (index 7 + k: held).
for k = 1, 3 do
  local b = budgets[k]
  if b then
    local left = b.limit - b.s - b.h
    if b.s >= b.limit then
      refuse(4 + k, b.ends > 0 and (b.ends - now) or -1)
    elseif total <= left then
      holds[k] = total
    elseif b.h <= 0 then
      holds[k] = left
    else
      refuse(7 + k, HELD_WAIT)
    end
  end
end
if #refusals > 0 then return { 0, now, unpack(refusals) } end
for w = 1, 3 do
  if limits[w] > 0 then
    levels[w] = math.min(limits[w] * W, levels[w] - debits[w])
    bucket_write(KEYS[3 + w], limits[w], levels[w])
  end
end
for k = 1, 3 do
  local b = budgets[k]
  if b then
    b.h = b.h + holds[k]
    budget_write(k, b, b.pid, b.ends)
  end
end
local day_pid = budgets[1] and budgets[1].pid or -1
local month_pid = budgets[2] and budgets[2].pid or -1
redis.call('HSET', KEYS[2], id, table.concat({ S(debits[1]), S(debits[2]), S(debits[3]),
  S(day_pid), S(holds[1]), S(month_pid), S(holds[2]), S(holds[3]), S(total) }, ' '))
redis.call('ZADD', KEYS[1], now + lease_ms, id)
redis.call('HINCRBY', KEYS[10], 'reserved', S(total))
touch(1, 3)
return { 1, unpack(status(budgets, levels, live + 1)) }
`

/**
 * Settle (ARGV 14 has usage "1"/"0", 15 input, 16 output, 17 cached, 18 total): once per id.
 * Drops the holds of a live reservation, corrects the token windows by actual − estimate, adds
 * the total to every budget and the key's totals. A reservation whose lease expired is counted
 * the same way (its holds were already dropped). A budget missing while reseeding is on is left
 * alone: the durable ledger holds this request, and the seed will count it. Reply 1, or 0 when
 * the id was already settled or released.
 */
const settleBody = `
local has_usage = ARGV[14] == '1'
local used = { 0, tonumber(ARGV[15]), tonumber(ARGV[16]) }
prune()
if redis.call('ZSCORE', KEYS[3], id) then return 0 end
local entry = redis.call('HGET', KEYS[2], id)
local f = entry and parse_holds(entry)
if f then
  drop_holds(f)
  redis.call('HINCRBY', KEYS[10], 'reserved', S(-f[9]))
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[1], id)
end
redis.call('HINCRBY', KEYS[10], 'requests', 1)
if has_usage then
  redis.call('HINCRBY', KEYS[10], 'input', ARGV[15])
  redis.call('HINCRBY', KEYS[10], 'output', ARGV[16])
  redis.call('HINCRBY', KEYS[10], 'cached', ARGV[17])
  redis.call('HINCRBY', KEYS[10], 'total', ARGV[18])
  local est = { 0, est_in, est_out }
  for w = 2, 3 do
    local limit = limits[w]
    if limit > 0 then
      -- A late settle's debit was made at reserve and never refunded: it was the estimate.
      local debited = f and f[w] or math.min(est[w], limit) * W
      local level = bucket_level(KEYS[3 + w], limit) + debited - used[w] * W
      bucket_write(KEYS[3 + w], limit, math.min(limit * W, level))
    end
  end
  local budgets = read_budgets()
  for k = 1, 3 do
    local b = budgets[k]
    if b then
      b.s = b.s + tonumber(ARGV[18])
      budget_write(k, b, b.pid, b.ends)
    end
  end
end
redis.call('ZADD', KEYS[3], now + done_ttl, id)
touch(3, 3)
return 1
`

/** Release: drops a live reservation's holds and refunds its window debits. Unknown or finished ids: 0. */
const releaseBody = `
prune()
if redis.call('ZSCORE', KEYS[3], id) then return 0 end
local entry = redis.call('HGET', KEYS[2], id)
if not entry then return 0 end
local f = parse_holds(entry)
drop_holds(f)
for w = 1, 3 do
  local limit = limits[w]
  if limit > 0 and f[w] > 0 then
    bucket_write(KEYS[3 + w], limit, math.min(limit * W, bucket_level(KEYS[3 + w], limit) + f[w]))
  end
end
redis.call('HINCRBY', KEYS[10], 'reserved', S(-f[9]))
redis.call('HDEL', KEYS[2], id)
redis.call('ZREM', KEYS[1], id)
redis.call('ZADD', KEYS[3], now + done_ttl, id)
touch(3, 3)
return 1
`

/** Extend: renews a live lease to now + lease ms (server clock). Reply 1, or 0 when it already expired. */
const extendBody = `
prune()
if not redis.call('ZSCORE', KEYS[1], id) then return 0 end
redis.call('ZADD', KEYS[1], 'XX', now + lease_ms, id)
touch(1, 2)
return 1
`

/**
 * Status: `{1, status…, requests, input, output, cached, total, reserved}` for `GET /v1/usage`, or
 * `{2, now, kind…}` when budgets must be seeded first. Changes nothing but expired leases.
 */
const statusBody = `
prune()
local budgets, missing = read_budgets()
if #missing > 0 then return { 2, now, unpack(missing) } end
local out = { 1, unpack(status(budgets)) }
local t = redis.call('HMGET', KEYS[10], 'requests', 'input', 'output', 'cached', 'total', 'reserved')
for i = 1, 6 do out[#out + 1] = math.max(0, tonumber(t[i]) or 0) end
return out
`

/**
 * Seed (ARGV 14 budget kind, 15 period id, 16 tokens already used): creates a missing budget with
 * what durable storage says was used — SET NX style: an existing budget is never overwritten or
 * incremented, and a seed for a period that is already over is ignored. Reply 1 when it seeded.
 */
const seedBody = `
local kind = tonumber(ARGV[14])
local pid, ends = period(kind, now)
if tonumber(ARGV[15]) ~= pid then return 0 end
if redis.call('EXISTS', KEYS[6 + kind]) == 1 then return 0 end
budget_write(kind, { s = math.max(0, tonumber(ARGV[16])), h = 0 }, pid, ends)
return 1
`

/** The usage meter's scripts, one atomic `EVALSHA` per operation. */
export const usageScripts = {
  reserve: defineRedisScript(usagePrelude + reserveBody),
  settle: defineRedisScript(usagePrelude + settleBody),
  release: defineRedisScript(usagePrelude + releaseBody),
  extend: defineRedisScript(usagePrelude + extendBody),
  status: defineRedisScript(usagePrelude + statusBody),
  seed: defineRedisScript(usagePrelude + seedBody),
}
