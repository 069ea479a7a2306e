import { heldBudgetRetryMs } from '../../usage/budget-admission'
import { defineRedisScript } from '../redis-script'
import { usagePrelude } from './usage-prelude'

/**
 * Reserve: checks every configured limit and, only if all pass, holds the request's share of each
 * (all or nothing): tokens in the token budgets, the estimated cost in the money budgets — one
 * atomic step, so a request is never admitted on tokens and then refused on money, or the
 * reverse. Reply: `{1, status…}` granted; `{0, now, limit index, wait ms, …}` refused (indices
 * 1–3 windows, 4 concurrency, 5–7 day, month, lifetime token budget spent, 8–10 the same budgets
 * held by requests in flight, 11–13 day, month, lifetime money budget spent, 14–16 the same held;
 * wait -1 = never); `{2, now, budget kind…}` budgets to seed first; `{3, now}` the id was already
 * settled.
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
local holds = { 0, 0, 0, 0, 0, 0 }
-- The budget rule of admitOnBudget (src/usage/budget-admission.ts): the whole estimate when it
-- fits, the remainder when nothing else is in flight, else a short wait. Refusal indices: token
-- budgets 5-7 spent, 8-10 held; money budgets 11-13 spent, 14-16 held.
for k = 1, 6 do
  local b = budgets[k]
  if b then
    local amount = k <= 3 and total or est_cost
    local spent_index = k <= 3 and 4 + k or 7 + k
    local left = b.limit - b.s - b.h
    if b.s >= b.limit then
      refuse(spent_index, b.ends > 0 and (b.ends - now) or -1)
    elseif amount <= left then
      holds[k] = amount
    elseif b.h <= 0 then
      holds[k] = left
    else
      refuse(spent_index + 3, HELD_WAIT)
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
for k = 1, 6 do
  local b = budgets[k]
  if b then
    b.h = b.h + holds[k]
    budget_write(k, b, b.pid, b.ends)
  end
end
local function pid_of(k) return budgets[k] and budgets[k].pid or -1 end
redis.call('HSET', KEYS[2], id, table.concat({ S(debits[1]), S(debits[2]), S(debits[3]),
  S(pid_of(1)), S(holds[1]), S(pid_of(2)), S(holds[2]), S(holds[3]), S(total),
  S(pid_of(4)), S(holds[4]), S(pid_of(5)), S(holds[5]), S(holds[6]), S(est_cost) }, ' '))
redis.call('ZADD', KEYS[1], now + lease_ms, id)
redis.call('HINCRBY', KEYS[10], 'reserved', S(total))
touch(1, 3)
return { 1, unpack(status(budgets, levels, live + 1)) }
`

/**
 * Settle (ARGV 21 has usage "1"/"0", 22 input, 23 output, 24 cached, 25 total, 26 cost in nano-USD
 * charged, 27 priced "1"/"0"): once per id. Drops the holds of a live reservation, corrects the
 * token windows by actual − estimate, adds the total to every token budget, the cost to every
 * money budget, and both to the key's totals. A reservation whose lease expired is counted the
 * same way (its holds were already dropped). A budget missing while reseeding is on is left
 * alone: the durable ledger holds this request, and the seed will count it. Reply `{1, now, kind,
 * spent, …}` with the money budget kinds (4–6) whose alert threshold this settle crossed — decided here, in
 * the step that adds the cost, so exactly one settle of the period crosses it, whatever instance
 * makes it — or 0 when the id was already settled or released.
 */
const settleBody = `
local has_usage = ARGV[21] == '1'
local used = { 0, tonumber(ARGV[22]), tonumber(ARGV[23]) }
local cost = math.max(0, tonumber(ARGV[26]))
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
if ARGV[27] == '1' then
  if cost > 0 then redis.call('HINCRBY', KEYS[10], 'cost', S(cost)) end
else
  redis.call('HINCRBY', KEYS[10], 'unpriced', 1)
end
local crossed = {}
local budgets
if cost > 0 then
  budgets = read_budgets()
  for k = 4, 6 do
    local b = budgets[k]
    if b then
      local before = b.s
      b.s = b.s + cost
      budget_write(k, b, b.pid, b.ends)
      if alert_at[k] >= 0 and before < alert_at[k] and b.s >= alert_at[k] then
        crossed[#crossed + 1] = k
        crossed[#crossed + 1] = S(b.s)
      end
    end
  end
end
if has_usage then
  redis.call('HINCRBY', KEYS[10], 'input', ARGV[22])
  redis.call('HINCRBY', KEYS[10], 'output', ARGV[23])
  redis.call('HINCRBY', KEYS[10], 'cached', ARGV[24])
  redis.call('HINCRBY', KEYS[10], 'total', ARGV[25])
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
  budgets = budgets or read_budgets()
  for k = 1, 3 do
    local b = budgets[k]
    if b then
      b.s = b.s + tonumber(ARGV[25])
      budget_write(k, b, b.pid, b.ends)
    end
  end
end
redis.call('ZADD', KEYS[3], now + done_ttl, id)
touch(3, 3)
return { 1, now, unpack(crossed) }
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
 * Status: `{1, status…, requests, input, output, cached, total, reserved, cost, unpriced}` for
 * `GET /v1/usage`, or `{2, now, kind…}` when budgets must be seeded first. Changes nothing but
 * expired leases.
 */
const statusBody = `
prune()
local budgets, missing = read_budgets()
if #missing > 0 then return { 2, now, unpack(missing) } end
local out = { 1, unpack(status(budgets)) }
local t = redis.call('HMGET', KEYS[10], 'requests', 'input', 'output', 'cached', 'total', 'reserved',
  'cost', 'unpriced')
for i = 1, 8 do out[#out + 1] = math.max(0, tonumber(t[i]) or 0) end
return out
`

/**
 * Seed (ARGV 21 budget kind 1–6, 22 period id, 23 tokens or nano-USD already used): creates a
 * missing budget with what durable storage says was used — SET NX style: an existing budget is
 * never overwritten or incremented, and a seed for a period that is already over is ignored.
 * Reply 1 when it seeded.
 */
const seedBody = `
local kind = tonumber(ARGV[21])
local pid, ends = period(period_of(kind), now)
if tonumber(ARGV[22]) ~= pid then return 0 end
if redis.call('EXISTS', budget_key(kind)) == 1 then return 0 end
budget_write(kind, { s = math.max(0, tonumber(ARGV[23])), h = 0 }, pid, ends)
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
