import { heldBudgetRetryMs } from '../../usage/budget-admission'
import { defineRedisScript } from '../redis-script'
import { usagePrelude } from './usage-prelude'

/**
 * Reserve: checks every configured limit of every subject and, only if all pass, holds the
 * request's share of each (all or nothing): tokens in the token budgets, the estimated cost in the
 * money budgets — one atomic step, so a request is never admitted on tokens and then refused on
 * money, or by its key and then refused by its team. Reply: `{1, now, status…}` granted (19
 * numbers per subject); `{0, now, subject, limit index, wait ms, …}` refused (indices 1–3
 * windows, 4 concurrency, 5–7 day, month, lifetime token budget spent, 8–10 the same budgets held
 * by requests in flight, 11–13 day, month, lifetime money budget spent, 14–16 the same held; wait
 * -1 = never); `{2, now, subject, budget kind, …}` budgets to seed first; `{3, now}` the id was
 * already settled.
 */
const reserveBody = `
local HELD_WAIT = ${heldBudgetRetryMs}
prune_all()
local first = subjects[1]
if redis.call('ZSCORE', K(first, 1), id) then
  -- The same reservation again (a retry after a timeout): granted, nothing held twice.
  local out = { 1, now }
  for s = 1, n do status(out, subjects[s], read_budgets(s)) end
  return out
end
if redis.call('ZSCORE', K(first, 3), id) then return { 3, now } end
local missing, all = {}, {}
for s = 1, n do all[s] = read_budgets(s, missing) end
if #missing > 0 then return { 2, now, unpack(missing) } end
local refusals = {}
local current = 0
local function refuse(index, wait)
  refusals[#refusals + 1] = current
  refusals[#refusals + 1] = index
  refusals[#refusals + 1] = wait
end
local units = { 1, est_in, est_out }
local total = est_in + est_out
local plans = {}
for s = 1, n do
  current = s
  local sub, budgets = subjects[s], all[s]
  local limits = sub.limits
  local live = limits[4] > 0 and live_count(sub) or 0
  if limits[4] > 0 and live >= limits[4] then refuse(4, 1000) end
  local debits, levels = { 0, 0, 0 }, {}
  for w = 1, 3 do
    local limit = limits[w]
    if limit > 0 then
      local level = bucket_level(K(sub, 3 + w), limit)
      local cost = math.min(units[w], limit) * W
      if level < cost then
        refuse(w, math.ceil((cost - level) / limit))
      else
        debits[w], levels[w] = cost, level
      end
    end
  end
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
  plans[s] = { debits = debits, levels = levels, holds = holds, live = live }
end
if #refusals > 0 then return { 0, now, unpack(refusals) } end
local out = { 1, now }
for s = 1, n do
  local sub, budgets, p = subjects[s], all[s], plans[s]
  local limits, debits, levels, holds = sub.limits, p.debits, p.levels, p.holds
  for w = 1, 3 do
    if limits[w] > 0 then
      levels[w] = math.min(limits[w] * W, levels[w] - debits[w])
      bucket_write(K(sub, 3 + w), limits[w], levels[w])
    end
  end
  for k = 1, 6 do
    local b = budgets[k]
    if b then
      b.h = b.h + holds[k]
      budget_write(sub, k, b, b.pid, b.ends)
    end
  end
  local function pid_of(k) return budgets[k] and budgets[k].pid or -1 end
  redis.call('HSET', K(sub, 2), id, table.concat({ S(debits[1]), S(debits[2]), S(debits[3]),
    S(pid_of(1)), S(holds[1]), S(pid_of(2)), S(holds[2]), S(holds[3]), S(total),
    S(pid_of(4)), S(holds[4]), S(pid_of(5)), S(holds[5]), S(holds[6]), S(est_cost) }, ' '))
  redis.call('ZADD', K(sub, 1), now + lease_ms, id)
  redis.call('HINCRBY', K(sub, 10), 'reserved', S(total))
  touch(sub, 1, 3)
  status(out, sub, budgets, levels, p.live + 1)
end
return out
`

/**
 * Settle (own arguments: 1 usage "1"/"0", 2 input, 3 output, 4 cached, 5 total, 6 cost in
 * nano-USD charged, 7 priced "1"/"0", 8 a response-cache hit "1"/"0", 9 what the hit saved in
 * nano-USD): once per id and subject. For each subject, drops the holds of a live reservation,
 * corrects the token windows by actual − estimate, adds the total to every token budget, the cost
 * to every money budget, and both (and a hit with its saving) to the subject's totals. Arguments 8
 * and 9 came later: a settle of an older instance leaves them out, and counts no hit. A reservation
 * whose lease expired is counted the same way (its holds were already dropped). A budget missing
 * while reseeding is on is left alone: the durable ledger holds this request, and the seed will
 * count it. Reply `{1, now, subject, kind, spent, …}` with the money budget kinds (4–6) whose
 * alert threshold this settle crossed — decided here, in the step that adds the cost, so exactly
 * one settle of the period crosses it, whatever instance makes it — or 0 when the id was already
 * settled or released for every subject.
 */
const settleBody = `
local has_usage = ARGV[own + 1] == '1'
local used = { 0, tonumber(ARGV[own + 2]), tonumber(ARGV[own + 3]) }
local total_used = tonumber(ARGV[own + 5])
local cost = math.max(0, tonumber(ARGV[own + 6]))
local priced = ARGV[own + 7] == '1'
local hit = ARGV[own + 8] == '1'
local saved = hit and math.max(0, tonumber(ARGV[own + 9]) or 0) or 0
prune_all()
local crossed = {}
local counted = false
for s = 1, n do
  local sub = subjects[s]
  if not redis.call('ZSCORE', K(sub, 3), id) then
    counted = true
    local limits = sub.limits
    local entry = redis.call('HGET', K(sub, 2), id)
    local f = entry and parse_holds(entry)
    if f then
      drop_holds(sub, f)
      redis.call('HINCRBY', K(sub, 10), 'reserved', S(-f[9]))
      redis.call('HDEL', K(sub, 2), id)
      redis.call('ZREM', K(sub, 1), id)
    end
    redis.call('HINCRBY', K(sub, 10), 'requests', 1)
    if priced then
      if cost > 0 then redis.call('HINCRBY', K(sub, 10), 'cost', S(cost)) end
    else
      redis.call('HINCRBY', K(sub, 10), 'unpriced', 1)
    end
    if hit then
      redis.call('HINCRBY', K(sub, 10), 'hits', 1)
      if saved > 0 then redis.call('HINCRBY', K(sub, 10), 'saved', S(saved)) end
    end
    local budgets
    if cost > 0 then
      budgets = read_budgets(s)
      for k = 4, 6 do
        local b = budgets[k]
        if b then
          local before = b.s
          b.s = b.s + cost
          budget_write(sub, k, b, b.pid, b.ends)
          local alert = sub.alert_at[k]
          if alert >= 0 and before < alert and b.s >= alert then
            crossed[#crossed + 1] = s
            crossed[#crossed + 1] = k
            crossed[#crossed + 1] = S(b.s)
          end
        end
      end
    end
    if has_usage then
      redis.call('HINCRBY', K(sub, 10), 'input', ARGV[own + 2])
      redis.call('HINCRBY', K(sub, 10), 'output', ARGV[own + 3])
      redis.call('HINCRBY', K(sub, 10), 'cached', ARGV[own + 4])
      redis.call('HINCRBY', K(sub, 10), 'total', ARGV[own + 5])
      local est = { 0, est_in, est_out }
      for w = 2, 3 do
        local limit = limits[w]
        if limit > 0 then
          -- A late settle's debit was made at reserve and never refunded: it was the estimate.
          local debited = f and f[w] or math.min(est[w], limit) * W
          local level = bucket_level(K(sub, 3 + w), limit) + debited - used[w] * W
          bucket_write(K(sub, 3 + w), limit, math.min(limit * W, level))
        end
      end
      budgets = budgets or read_budgets(s)
      for k = 1, 3 do
        local b = budgets[k]
        if b then
          b.s = b.s + total_used
          budget_write(sub, k, b, b.pid, b.ends)
        end
      end
    end
    redis.call('ZADD', K(sub, 3), now + done_ttl, id)
    touch(sub, 3, 3)
  end
end
if not counted then return 0 end
return { 1, now, unpack(crossed) }
`

/**
 * Release: drops a live reservation's holds and refunds its window debits, for every subject.
 * Reply 1, or 0 when no subject held it (unknown or finished ids).
 */
const releaseBody = `
prune_all()
local released = 0
for s = 1, n do
  local sub = subjects[s]
  local entry = not redis.call('ZSCORE', K(sub, 3), id) and redis.call('HGET', K(sub, 2), id)
  if entry then
    local limits = sub.limits
    local f = parse_holds(entry)
    drop_holds(sub, f)
    for w = 1, 3 do
      local limit = limits[w]
      if limit > 0 and f[w] > 0 then
        local level = bucket_level(K(sub, 3 + w), limit) + f[w]
        bucket_write(K(sub, 3 + w), limit, math.min(limit * W, level))
      end
    end
    redis.call('HINCRBY', K(sub, 10), 'reserved', S(-f[9]))
    redis.call('HDEL', K(sub, 2), id)
    redis.call('ZREM', K(sub, 1), id)
    redis.call('ZADD', K(sub, 3), now + done_ttl, id)
    touch(sub, 3, 3)
    released = 1
  end
end
return released
`

/**
 * Extend: renews a live lease of every subject to now + lease ms (server clock). Reply 1, or 0
 * when it already expired everywhere.
 */
const extendBody = `
prune_all()
local extended = 0
for s = 1, n do
  local sub = subjects[s]
  if redis.call('ZSCORE', K(sub, 1), id) then
    redis.call('ZADD', K(sub, 1), 'XX', now + lease_ms, id)
    touch(sub, 1, 2)
    extended = 1
  end
end
return extended
`

/**
 * Status: `{1, now, then per subject: status… (19), requests, input, output, cached, total,
 * reserved, cost, unpriced, hits, saved}` for `GET /v1/usage`, or `{2, now, subject, kind…}` when budgets must
 * be seeded first. Changes nothing but expired leases.
 */
const statusBody = `
prune_all()
local missing, all = {}, {}
for s = 1, n do all[s] = read_budgets(s, missing) end
if #missing > 0 then return { 2, now, unpack(missing) } end
local out = { 1, now }
for s = 1, n do
  local sub = subjects[s]
  status(out, sub, all[s])
  local t = redis.call('HMGET', K(sub, 10), 'requests', 'input', 'output', 'cached', 'total',
    'reserved', 'cost', 'unpriced', 'hits', 'saved')
  for i = 1, 10 do out[#out + 1] = math.max(0, tonumber(t[i]) or 0) end
end
return out
`

/**
 * Seed (own arguments: 1 budget kind 1–6, 2 period id, 3 tokens or nano-USD already used), on the
 * first subject: creates a missing budget with what durable storage says was used — SET NX style:
 * an existing budget is never overwritten or incremented, and a seed for a period that is already
 * over is ignored. Reply 1 when it seeded.
 */
const seedBody = `
local kind = tonumber(ARGV[own + 1])
local sub = subjects[1]
local pid, ends = period(period_of(kind), now)
if tonumber(ARGV[own + 2]) ~= pid then return 0 end
if redis.call('EXISTS', budget_key(sub, kind)) == 1 then return 0 end
budget_write(sub, kind, { s = math.max(0, tonumber(ARGV[own + 3])), h = 0 }, pid, ends)
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
