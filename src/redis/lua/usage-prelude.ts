/**
 * The Lua shared by every usage script: the server clock, UTC calendar periods, token buckets,
 * budgets, and lease pruning, for each metered subject a script is given (the key, and a team,
 * organisation or end user). Each script is this prelude followed by its own body, so each stays
 * one atomic `EVALSHA`: it checks every subject before it writes any.
 *
 * KEYS: thirteen per subject, subject after subject, in this order (a subject's keys share its
 * hash tag; every key of one call shares one Cluster slot, see `src/redis/usage-keys.ts`):
 *   1 lease  ZSET reservation id → lease expiry (ms, server clock)
 *   2 res    HASH reservation id → what it holds of this subject: "rpm itpm otpm dayPeriod dayHold
 *            monthPeriod monthHold lifeHold tokens mDayPeriod mDayHold mMonthPeriod mMonthHold
 *            mLifeHold cost" (window debits in unit·ms; budget holds; the whole estimate)
 *   3 done   ZSET settled/released id → when to forget it (so a second settle does nothing)
 *   4–6      HASH token buckets {l = level in unit·ms, t = ms}: requests, input, output per minute
 *   7–9      HASH token budgets {p = period id, s = spent, h = held}: day, month, lifetime
 *   10 totals HASH requests, input, output, cached, total, cost (nano-USD charged), unpriced
 *            (requests on unpriced models), hits (response-cache hits) and saved (what they
 *            saved, nano-USD); reserved = estimates in flight
 *   11–13    HASH money budgets {p, s, h} in nano-USD: day, month, lifetime
 *
 * ARGV (every script): 1 reseed ("1": a missing budget is seeded from durable storage, never
 *   assumed empty), 2 lease ms, 3 done ttl ms, 4 reservation id, 5 estimated input, 6 estimated
 *   output, 7 estimated cost (nano-USD), 8 the number of subjects n; then thirteen per subject:
 *   requestsPerMinute, inputTokensPerMinute, outputTokensPerMinute, concurrency (0 = none),
 *   tokensPerDay, tokensPerMonth, quota, money budgets per day, month, lifetime in nano-USD, and
 *   their alert thresholds (budgets and thresholds -1 = none). A script's own arguments follow,
 *   from ARGV[9 + 13n] (`own`).
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
local reseed = ARGV[1] == '1'
local lease_ms = tonumber(ARGV[2])
local done_ttl = tonumber(ARGV[3])
local id = ARGV[4]
local est_in = math.max(0, tonumber(ARGV[5]))
local est_out = math.max(0, tonumber(ARGV[6]))
local est_cost = math.max(0, tonumber(ARGV[7]))
local n = tonumber(ARGV[8])
local own = 8 + 13 * n
-- Each subject: its first KEYS index - 1, its limits (1-3 windows, 4 concurrency, 0 = none), the
-- limit of each budget kind (1-3 tokens, 4-6 money) and the money budgets' alert thresholds (-1 =
-- none).
local subjects = {}
for s = 1, n do
  local a = 8 + 13 * (s - 1)
  local v = {}
  for i = 1, 13 do v[i] = tonumber(ARGV[a + i]) end
  subjects[s] = {
    k = 13 * (s - 1),
    limits = { v[1], v[2], v[3], v[4] },
    budget_limits = { v[5], v[6], v[7], v[8], v[9], v[10] },
    alert_at = { -1, -1, -1, v[11], v[12], v[13] },
  }
end
-- A subject's key by its index in the table above.
local function K(sub, i) return KEYS[sub.k + i] end

-- '%.0f' writes a negative zero (a hold of 0 taken back: a cache hit reserves nothing) as '-0',
-- which HINCRBY refuses as not an integer.
local function S(x)
  local text = string.format('%.0f', x)
  if text == '-0' then return '0' end
  return text
end

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

-- A budget kind's hash (1-3 tokens: keys 7-9; 4-6 money: keys 11-13) and calendar period.
local function budget_key(sub, kind) return kind <= 3 and K(sub, 6 + kind) or K(sub, 7 + kind) end
local function period_of(kind) return (kind - 1) % 3 + 1 end

-- A budget as stored: nil when missing (flushed, evicted, never seeded); empty in a new period.
local function budget_read(sub, kind)
  local pid, ends = period(period_of(kind), now)
  local v = redis.call('HMGET', budget_key(sub, kind), 'p', 's', 'h')
  if not v[1] then return nil, pid, ends end
  if tonumber(v[1]) ~= pid then return { s = 0, h = 0 }, pid, ends end
  return { s = tonumber(v[2]) or 0, h = tonumber(v[3]) or 0 }, pid, ends
end
local function budget_write(sub, kind, b, pid, ends)
  local key = budget_key(sub, kind)
  redis.call('HSET', key, 'p', S(pid), 's', S(b.s), 'h', S(math.max(0, b.h)))
  if ends > 0 then redis.call('PEXPIRE', key, ends - now + 7 * DAY) end
end
local function drop_hold(sub, kind, pid, amount)
  -- An entry written before money budgets existed has no money fields: nothing to drop.
  if not amount or amount <= 0 then return end
  local key = budget_key(sub, kind)
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
local function drop_holds(sub, f)
  drop_hold(sub, 1, f[4], f[5])
  drop_hold(sub, 2, f[6], f[7])
  drop_hold(sub, 3, 0, f[8])
  drop_hold(sub, 4, f[10], f[11])
  drop_hold(sub, 5, f[12], f[13])
  drop_hold(sub, 6, 0, f[14])
end

-- Frees the holds of a subject's expired leases (a bounded batch per call, so one script never
-- runs long).
local function prune(sub)
  local expired = redis.call('ZRANGEBYSCORE', K(sub, 1), '-inf', now, 'LIMIT', 0, 256)
  for _, rid in ipairs(expired) do
    local entry = redis.call('HGET', K(sub, 2), rid)
    if entry then
      local f = parse_holds(entry)
      drop_holds(sub, f)
      redis.call('HINCRBY', K(sub, 10), 'reserved', S(-f[9]))
    end
    redis.call('HDEL', K(sub, 2), rid)
    redis.call('ZREM', K(sub, 1), rid)
  end
  redis.call('ZREMRANGEBYSCORE', K(sub, 3), '-inf', now)
end
local function prune_all() for s = 1, n do prune(subjects[s]) end end

local function live_count(sub) return redis.call('ZCOUNT', K(sub, 1), '(' .. now, '+inf') end

-- An idle subject's lease, reservation and done keys expire on their own.
local function touch(sub, first, last)
  for i = first, last do redis.call('PEXPIRE', K(sub, i), lease_ms + done_ttl) end
end

-- Appends to \`out\` the state of every configured limit of a subject (19 numbers): rpm
-- remaining, reset, itpm…, otpm…, free slots, then spent and held of each budget kind 1-6 (token
-- day, month, life; money day, month, life), -1 where a limit is not set. \`levels\` and \`live\`
-- may pass what the caller already knows.
local function status(out, sub, budgets, levels, live)
  local limits = sub.limits
  for w = 1, 3 do
    local limit = limits[w]
    if limit > 0 then
      local level = levels and levels[w] or bucket_level(K(sub, 3 + w), limit)
      out[#out + 1] = bucket_remaining(level)
      out[#out + 1] = bucket_reset(level, limit)
    else
      out[#out + 1] = -1
      out[#out + 1] = -1
    end
  end
  out[#out + 1] = limits[4] > 0 and math.max(0, limits[4] - (live or live_count(sub))) or -1
  for k = 1, 6 do
    local b = budgets[k]
    out[#out + 1] = b and b.s or -1
    out[#out + 1] = b and b.h or -1
  end
  return out
end

-- Reads a subject's configured budgets. Returns them; a missing one (flushed, evicted, never
-- seeded) is left out when re-seeding is on, and added to \`missing\` (when given) as a pair:
-- subject index, kind.
local function read_budgets(s, missing)
  local sub = subjects[s]
  local budgets = {}
  for k = 1, 6 do
    local limit = sub.budget_limits[k]
    if limit >= 0 then
      local b, pid, ends = budget_read(sub, k)
      if b == nil and not reseed then b = { s = 0, h = 0 } end
      if b == nil and missing then
        missing[#missing + 1] = s
        missing[#missing + 1] = k
      end
      if b then
        b.pid, b.ends, b.limit = pid, ends, limit
        budgets[k] = b
      end
    end
  end
  return budgets
end
`
