/**
 * The Lua shared by every usage script: the server clock, UTC calendar periods, token buckets,
 * budgets, and lease pruning. Each script is this prelude followed by its own body, so each stays
 * one atomic `EVALSHA` touching only its key's hash-tagged keys.
 *
 * KEYS (every script, in this order, all under one hash tag `{k:<key id>}`):
 *   1 lease  ZSET reservation id → lease expiry (ms, server clock)
 *   2 res    HASH reservation id → what it holds: "rpm itpm otpm dayPeriod dayHold monthPeriod monthHold
 *            lifeHold tokens" (window debits in unit·ms; budget holds; the whole estimate)
 *   3 done   ZSET settled/released id → when to forget it (so a second settle does nothing)
 *   4–6      HASH token buckets {l = level in unit·ms, t = ms}: requests, input, output per minute
 *   7–9      HASH token budgets {p = period id, s = spent, h = held}: day, month, lifetime
 *   10 totals HASH requests, input, output, cached, total, cost (nano-USD charged), unpriced
 *            (requests on unpriced models); reserved = estimates in flight
 *   11–13    HASH money budgets {p, s, h} in nano-USD: day, month, lifetime
 *
 * ARGV (every script): 1 requestsPerMinute, 2 inputTokensPerMinute, 3 outputTokensPerMinute,
 *   4 concurrency (0 = none), 5 tokensPerDay, 6 tokensPerMonth, 7 quota (-1 = none),
 *   8 reseed ("1": a missing budget is seeded from durable storage, never assumed empty),
 *   9 lease ms, 10 done ttl ms, 11 reservation id, 12 estimated input, 13 estimated output,
 *   14–16 money budgets per day, month, lifetime in nano-USD (-1 = none), 17 estimated cost
 *   (nano-USD), 18–20 their alert thresholds (nano-USD, -1 = none). A script's own arguments
 *   start at 21.
 *
 * Budget kinds 1–3 are the token budgets (day, month, lifetime), 4–6 the money budgets of the
 * same periods. Money is counted in whole nano-USD, exact in Lua's doubles up to 2⁵³ (about
 * $9 million a budget), which the config's limit of $9,000,000 keeps within.
 *
 * Numbers are written with `%.0f`: Lua's own `tostring` keeps 14 digits, which would round large
 * levels. The same rules in TypeScript: `src/usage/local-limiter.ts`, `src/usage/token-bucket.ts`,
 * `src/usage/key-limits.ts`.
 */
export const usagePrelude = `
local W = 60000
local DAY = 86400000
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local limits = {}
for i = 1, 7 do limits[i] = tonumber(ARGV[i]) end
local reseed = ARGV[8] == '1'
local lease_ms = tonumber(ARGV[9])
local done_ttl = tonumber(ARGV[10])
local id = ARGV[11]
local est_in = math.max(0, tonumber(ARGV[12]))
local est_out = math.max(0, tonumber(ARGV[13]))
-- The limit of each budget kind (1-3 tokens, 4-6 money), -1 when the key has none.
local budget_limits = { limits[5], limits[6], limits[7],
  tonumber(ARGV[14]), tonumber(ARGV[15]), tonumber(ARGV[16]) }
local est_cost = math.max(0, tonumber(ARGV[17]))
local alert_at = { -1, -1, -1, tonumber(ARGV[18]), tonumber(ARGV[19]), tonumber(ARGV[20]) }

local function S(x) return string.format('%.0f', x) end

-- Days since 1970-01-01 <-> civil date (H. Hinnant's algorithms), for UTC months.
local function civil(days)
  local z = days + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local m = mp < 10 and mp + 3 or mp - 9
  local y = yoe + era * 400
  if m <= 2 then y = y + 1 end
  return y, m
end
local function days_from_civil(y, m)
  if m <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local mm = m > 2 and m - 3 or m + 9
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + math.floor((153 * mm + 2) / 5)
  return era * 146097 + doe - 719468
end

-- kind 1 day, 2 month, 3 lifetime -> period id, end ms (-1: never)
local function period(kind, at)
  if kind == 1 then
    local day = math.floor(at / DAY)
    return day, (day + 1) * DAY
  elseif kind == 2 then
    local y, m = civil(math.floor(at / DAY))
    local ny, nm = y, m + 1
    if nm > 12 then ny, nm = y + 1, 1 end
    return y * 12 + (m - 1), days_from_civil(ny, nm) * DAY
  end
  return 0, -1
end

local function bucket_level(key, limit)
  local v = redis.call('HMGET', key, 'l', 't')
  local cap = limit * W
  if not v[1] then return cap end
  local elapsed = math.max(0, now - tonumber(v[2]))
  return math.min(cap, tonumber(v[1]) + elapsed * limit)
end
local function bucket_write(key, limit, level)
  local cap = limit * W
  if level >= cap then
    -- A full bucket is the same as no bucket.
    redis.call('DEL', key)
    return
  end
  redis.call('HSET', key, 'l', S(level), 't', S(now))
  redis.call('PEXPIRE', key, math.ceil((cap - level) / limit) + 1000)
end
local function bucket_remaining(level) return math.max(0, math.floor(level / W)) end
local function bucket_reset(level, limit) return math.max(0, math.ceil((limit * W - level) / limit)) end

-- A budget kind's hash (1-3 tokens: KEYS 7-9; 4-6 money: KEYS 11-13) and calendar period.
local function budget_key(kind) return kind <= 3 and KEYS[6 + kind] or KEYS[7 + kind] end
local function period_of(kind) return (kind - 1) % 3 + 1 end

-- A budget as stored: nil when missing (flushed, evicted, never seeded); empty in a new period.
local function budget_read(kind)
  local pid, ends = period(period_of(kind), now)
  local v = redis.call('HMGET', budget_key(kind), 'p', 's', 'h')
  if not v[1] then return nil, pid, ends end
  if tonumber(v[1]) ~= pid then return { s = 0, h = 0 }, pid, ends end
  return { s = tonumber(v[2]) or 0, h = tonumber(v[3]) or 0 }, pid, ends
end
local function budget_write(kind, b, pid, ends)
  local key = budget_key(kind)
  redis.call('HSET', key, 'p', S(pid), 's', S(b.s), 'h', S(math.max(0, b.h)))
  if ends > 0 then redis.call('PEXPIRE', key, ends - now + 7 * DAY) end
end
local function drop_hold(kind, pid, amount)
  -- An entry written before money budgets existed has no money fields: nothing to drop.
  if not amount or amount <= 0 then return end
  local key = budget_key(kind)
  local v = redis.call('HMGET', key, 'p', 'h')
  -- A hold of an earlier period was dropped when the period rolled over.
  if v[1] and tonumber(v[1]) == pid then
    redis.call('HSET', key, 'h', S(math.max(0, tonumber(v[2]) - amount)))
  end
end

local function parse_holds(entry)
  local f = {}
  for x in string.gmatch(entry, '%S+') do f[#f + 1] = tonumber(x) end
  return f
end
local function drop_holds(f)
  drop_hold(1, f[4], f[5])
  drop_hold(2, f[6], f[7])
  drop_hold(3, 0, f[8])
  drop_hold(4, f[10], f[11])
  drop_hold(5, f[12], f[13])
  drop_hold(6, 0, f[14])
end

-- Frees the holds of expired leases (a bounded batch per call, so one script never runs long).
local function prune()
  local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 256)
  for _, rid in ipairs(expired) do
    local entry = redis.call('HGET', KEYS[2], rid)
    if entry then
      local f = parse_holds(entry)
      drop_holds(f)
      redis.call('HINCRBY', KEYS[10], 'reserved', S(-f[9]))
    end
    redis.call('HDEL', KEYS[2], rid)
    redis.call('ZREM', KEYS[1], rid)
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
end

local function live_count() return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf') end

-- An idle API key's lease, reservation and done keys expire on their own.
local function touch(first, last)
  for i = first, last do redis.call('PEXPIRE', KEYS[i], lease_ms + done_ttl) end
end

-- The state of every configured limit: {now, rpm remaining, reset, itpm…, otpm…, free slots,
-- then spent and held of each budget kind 1-6 (token day, month, life; money day, month, life)},
-- -1 where a limit is not set. \`levels\` and \`live\` may pass what the caller already knows.
local function status(budgets, levels, live)
  local out = { now }
  for w = 1, 3 do
    local limit = limits[w]
    if limit > 0 then
      local level = levels and levels[w] or bucket_level(KEYS[3 + w], limit)
      out[#out + 1] = bucket_remaining(level)
      out[#out + 1] = bucket_reset(level, limit)
    else
      out[#out + 1] = -1
      out[#out + 1] = -1
    end
  end
  out[#out + 1] = limits[4] > 0 and math.max(0, limits[4] - (live or live_count())) or -1
  for k = 1, 6 do
    local b = budgets[k]
    out[#out + 1] = b and b.s or -1
    out[#out + 1] = b and b.h or -1
  end
  return out
end

-- Reads the configured budgets. Returns them, or the kinds that must be seeded first.
local function read_budgets()
  local budgets, missing = {}, {}
  for k = 1, 6 do
    if budget_limits[k] >= 0 then
      local b, pid, ends = budget_read(k)
      if b == nil then
        if reseed then missing[#missing + 1] = k else b = { s = 0, h = 0 } end
      end
      if b then
        b.pid, b.ends, b.limit = pid, ends, budget_limits[k]
        budgets[k] = b
      end
    end
  end
  return budgets, missing
end
`
