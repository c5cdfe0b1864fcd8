package redisfront

import "github.com/redis/go-redis/v9"

// The Lua scripts: every step that reads and writes more than one key runs as one script, so
// no other process sees it half done, and no two processes race between a read and a write.
// Times are Redis's (TIME, in microseconds), the same clock for every process; a time a
// caller passes (Ended's end, Retry's not-before, HostBackoff's end) is passed as an offset
// from the caller's now, so that clocks of other machines never matter.
//
// Every script gets ARGV[1..7] = key prefix, host concurrency, host delay (µs), this
// process's instance id, its lease (µs), the most sites crawled at once and the claims of a
// site before it goes back behind the waiting ones (0: no bound); its own arguments follow. KEYS[1] is the
// counters hash, for a cluster's routing (all keys share the {crawl id} hash tag).

// prelude is the start of every script: its constants and helpers.
const prelude = `
local P = ARGV[1]
local CONC = tonumber(ARGV[2])
local DELAY = tonumber(ARGV[3])
local INST = ARGV[4]
local LEASE = tonumber(ARGV[5])
local MAXSITES = tonumber(ARGV[6])
local MAXINTER = tonumber(ARGV[7])
local tm = redis.call('TIME')
local NOW = tonumber(tm[1]) * 1000000 + tonumber(tm[2])
local K_U = P .. 'u'
local K_N = P .. 'n'
local K_HOSTS = P .. 'hosts'
local K_C = P .. 'c'
local K_PROCS = P .. 'procs'
local K_SEQ = P .. 'seq'
local K_SA = P .. 'sa'
local K_SW = P .. 'sw'
local PRIO = 1099511627776 -- 2^40: queue score = priority * PRIO + seq
local LVL = 17592186044416 -- 2^44: with levels, priority = level * 16 + priority + 8 (see levels.go)

local function hk(h) return P .. 'h:' .. h end
local function qk(h) return P .. 'q:' .. h end
local function nbk(h) return P .. 'nb:' .. h end
local function pck(i) return P .. 'pc:' .. i end

-- header of a u/ value: state letter, queue score, newline; the record follows.
local function header(st, score) return st .. string.format('%d', score) .. '\n' end
local function score(v) return tonumber(string.match(v, '^.(%-?%d+)\n')) end
local function restate(v, st) return st .. string.sub(v, 2) end

local function hostState(h)
  local v = redis.call('HMGET', hk(h), 'i', 'b', 'w', 'e', 'k', 'd', 'o')
  return {i = tonumber(v[1]) or 0, b = tonumber(v[2]) or 0, w = tonumber(v[3]) or 0,
    e = tonumber(v[4]) or 0, k = tonumber(v[5]) or 0, d = tonumber(v[6]) or 0, o = tonumber(v[7])}
end

local function politeAt(s)
  local at = s.k
  if s.e > 0 then
    local d = s.o
    if d == nil then d = math.max(s.d, DELAY) end
    if s.e + d > at then at = s.e + d end
  end
  return at
end

-- levels returns the crawl's priority levels (P lv, written by Open): n levels (0 or 1:
-- none), d the default level, p the pick (wrr, rr or pri).
local lvcfg = nil
local function levels()
  if lvcfg == nil then
    local v = redis.call('HMGET', P .. 'lv', 'n', 'd', 'p')
    lvcfg = {n = tonumber(v[1]) or 0, d = tonumber(v[2]) or 1, p = v[3] or 'wrr'}
  end
  return lvcfg
end

-- hostsKey is the zset of the ready hosts of level l (0: without levels, K_HOSTS).
local function hostsKey(l)
  if l == 0 then return K_HOSTS end
  return K_HOSTS .. ':' .. l
end

-- bestLevel is the level of host h's ready hosts: the level of its first queued URL (or of
-- its first URL waiting to be retried), the default for a URL queued without levels.
local function bestLevel(h)
  local lv = levels()
  local first = redis.call('ZRANGE', qk(h), 0, 0, 'WITHSCORES')
  local sc
  if #first > 0 then
    sc = tonumber(first[2])
  else
    local nb = redis.call('ZRANGE', nbk(h), 0, 0)
    if #nb == 0 then return lv.d end
    sc = score(redis.call('HGET', K_U, nb[1]))
  end
  local l = math.floor(sc / LVL)
  if l < 1 then return lv.d end
  if l > lv.n then return lv.n end
  return l
end

-- unready takes host h out of the ready hosts.
local function unready(h)
  if levels().n <= 1 then
    redis.call('ZREM', K_HOSTS, h)
    return
  end
  local l = redis.call('HGET', hk(h), 'l')
  if l then
    redis.call('ZREM', hostsKey(tonumber(l)), h)
    redis.call('HDEL', hk(h), 'l')
  end
end

-- readyKey returns the zset of ready hosts h belongs in now, taking it out of another
-- level's (its level is its best URL's).
local function readyKey(h)
  if levels().n <= 1 then return K_HOSTS end
  local l = bestLevel(h)
  local old = tonumber(redis.call('HGET', hk(h), 'l'))
  if old ~= l then
    if old then redis.call('ZREM', hostsKey(old), h) end
    redis.call('HSET', hk(h), 'l', l)
  end
  return hostsKey(l)
end

local sched

-- fillSites gives the free site places (MAXSITES) to the hosts waiting for one, first come
-- first served; a waiting host without work any more is dropped, a draining one takes its own
-- place back.
local function fillSites()
  while redis.call('HLEN', K_SA) < MAXSITES do
    local w = redis.call('ZPOPMIN', K_SW)
    if #w == 0 then return end
    local h = w[1]
    if redis.call('HGET', K_SA, h) == 'r' or redis.call('ZCARD', qk(h)) > 0 or redis.call('ZCARD', nbk(h)) > 0 then
      redis.call('HSET', K_SA, h, 'a')
      redis.call('HSET', hk(h), 's', 0)
      sched(h)
    end
  end
end

-- siteHeld frees the site place of host h when its queue is empty, or it drained, and its
-- claims are finished; it reports whether h may not be claimed for want of a place (it waits
-- for one, or it is draining).
local function siteHeld(h)
  local st = redis.call('HGET', K_SA, h)
  if st then
    local i = tonumber(redis.call('HGET', hk(h), 'i')) or 0
    if i <= 0 and (st == 'r' or (redis.call('ZCARD', qk(h)) == 0 and redis.call('ZCARD', nbk(h)) == 0)) then
      redis.call('HDEL', K_SA, h)
      redis.call('HSET', hk(h), 's', 0)
      fillSites()
      st = redis.call('HGET', K_SA, h)
    end
  end
  if st == 'r' then return true end
  return redis.call('ZSCORE', K_SW, h) ~= false
end

-- waitSite puts host h last in line for a site place.
local function waitSite(h)
  redis.call('ZADD', K_SW, 'NX', redis.call('INCR', P .. 'swseq'), h)
end

-- sched puts host h where it belongs after any change: in the hosts zset at the time it may
-- be claimed (keeping the place of a host that was ready already: round robin), or out of it.
sched = function(h)
  if MAXSITES > 0 and siteHeld(h) then
    unready(h)
    return
  end
  local nb = nil
  if redis.call('ZCARD', qk(h)) == 0 then
    local first = redis.call('ZRANGE', nbk(h), 0, 0, 'WITHSCORES')
    if #first == 0 then
      unready(h)
      return
    end
    nb = tonumber(first[2])
  end
  local s = hostState(h)
  if s.i >= CONC or s.b >= CONC or s.w > 0 then
    unready(h)
    return
  end
  local at = politeAt(s)
  if nb ~= nil and nb > at then at = nb end
  local key = readyKey(h)
  if at > NOW then
    redis.call('ZADD', key, at, h)
    return
  end
  local cur = redis.call('ZSCORE', key, h)
  if not cur or tonumber(cur) > NOW then redis.call('ZADD', key, NOW, h) end
end

-- endReq ends a request in progress on h at t.
local function endReq(h, t)
  redis.call('HINCRBY', hk(h), 'b', -1)
  local e = tonumber(redis.call('HGET', hk(h), 'e')) or 0
  if t > e then redis.call('HSET', hk(h), 'e', string.format('%d', t)) end
end

local function getClaim(u, tok)
  local raw = redis.call('HGET', K_C, u)
  if not raw then return nil end
  local c = cmsgpack.unpack(raw)
  if c.t ~= tonumber(tok) or c.p ~= INST then return nil end
  return c
end

local function putClaim(u, c) redis.call('HSET', K_C, u, cmsgpack.pack(c)) end

-- release frees what claim c holds on hosts (its slot, its request in progress, a Pace's
-- wait) and drops the claim; the hosts touched are added to touched.
local function release(u, c, touched)
  if c.r ~= '' then endReq(c.r, NOW + 1); touched[c.r] = true end
  if c.w ~= '' then redis.call('HINCRBY', hk(c.w), 'w', -1); touched[c.w] = true end
  redis.call('HINCRBY', hk(c.h), 'i', -1)
  touched[c.h] = true
  redis.call('HDEL', K_C, u)
  redis.call('SREM', pck(c.p), u)
  redis.call('HINCRBY', K_N, 'i', -1)
end

local function schedAll(touched) for h in pairs(touched) do sched(h) end end

-- requeue puts a released claim's URL back in its host's queue at its place.
local function requeue(u, c)
  local v = redis.call('HGET', K_U, u)
  redis.call('HSET', K_U, u, restate(v, 'q'))
  redis.call('ZADD', qk(c.h), score(v), u)
  redis.call('HINCRBY', K_N, 'q', 1)
end

-- reclaim queues again every URL instance inst holds and forgets inst.
local function reclaim(inst)
  local touched = {}
  for _, u in ipairs(redis.call('SMEMBERS', pck(inst))) do
    local raw = redis.call('HGET', K_C, u)
    if raw then
      local c = cmsgpack.unpack(raw)
      if c.p == inst then
        release(u, c, touched)
        requeue(u, c)
      end
    end
  end
  redis.call('DEL', pck(inst))
  redis.call('ZREM', K_PROCS, inst)
  schedAll(touched)
end
`

func script(body string) *redis.Script { return redis.NewScript(prelude + body) }

// scriptRegister forgets the earlier instances of this process (ARGV[8], the Process name,
// whose instances are ARGV[8] .. '/' .. n), queueing their claims again, and registers this
// instance with its lease.
var scriptRegister = script(`
local pre = ARGV[8] .. '/'
for _, inst in ipairs(redis.call('ZRANGE', K_PROCS, 0, -1)) do
  if string.sub(inst, 1, #pre) == pre and inst ~= INST then reclaim(inst) end
end
redis.call('ZADD', K_PROCS, NOW + LEASE, INST)
return 1
`)

// scriptRenew extends this instance's lease and queues again the URLs Redis has as claimed
// by it that it does not hold (ARGV[8..]: the URLs it holds): claims whose reply never reached
// it (a connection lost after the script ran).
var scriptRenew = script(`
redis.call('ZADD', K_PROCS, NOW + LEASE, INST)
local live = {}
for j = 8, #ARGV do live[ARGV[j]] = true end
local touched = {}
local n = 0
for _, u in ipairs(redis.call('SMEMBERS', pck(INST))) do
  if not live[u] then
    local raw = redis.call('HGET', K_C, u)
    local c = raw and cmsgpack.unpack(raw)
    if c and c.p == INST then
      release(u, c, touched)
      requeue(u, c)
    else
      redis.call('SREM', pck(INST), u)
    end
    n = n + 1
  end
end
schedAll(touched)
return n
`)

// scriptRelease queues again every URL this instance holds and forgets it (Close).
var scriptRelease = script(`
reclaim(INST)
return 1
`)

// scriptAdd queues URLs not seen before (or only rejected). ARGV[8..]: url, host, queue
// priority, record, for each URL. It returns 1 (queued) or 0 (seen) per URL.
var scriptAdd = script(`
local res = {}
local touched = {}
for j = 8, #ARGV, 4 do
  local u, h, prio, rec = ARGV[j], ARGV[j+1], tonumber(ARGV[j+2]), ARGV[j+3]
  local v = redis.call('HGET', K_U, u)
  if v and string.sub(v, 1, 1) ~= 'r' then
    res[#res + 1] = 0
  else
    if v then redis.call('HINCRBY', K_N, 'r', -1) end
    local sc = prio * PRIO + redis.call('INCR', K_SEQ)
    redis.call('HSET', K_U, u, header('q', sc) .. rec)
    redis.call('ZADD', qk(h), sc, u)
    redis.call('HINCRBY', K_N, 'q', 1)
    touched[h] = true
    res[#res + 1] = 1
  end
end
schedAll(touched)
return res
`)

// scriptReject records a URL as rejected unless it is known. ARGV[8]: url, ARGV[9]: record.
// It returns 1 when it did.
var scriptReject = script(`
if redis.call('HSETNX', K_U, ARGV[8], header('r', 0) .. ARGV[9]) == 0 then return 0 end
redis.call('HINCRBY', K_N, 'r', 1)
return 1
`)

// scriptClaim reclaims the URLs of expired instances, then claims the first URL of the first
// ready host. It returns {1, url, value, token}, {2} when nothing is queued and nothing is in
// flight anywhere, or {0, µs until the next host is ready or a lease expires (-1: none)}.
var scriptClaim = script(`
redis.call('ZADD', K_PROCS, NOW + LEASE, INST)
for _, inst in ipairs(redis.call('ZRANGEBYSCORE', K_PROCS, '-inf', NOW, 'LIMIT', 0, 16)) do
  reclaim(inst)
end
-- claimIn claims the first URL of the first ready host of the zset key, or returns nil.
local function claimIn(key)
for n = 1, 64 do
  local hs = redis.call('ZRANGEBYSCORE', key, '-inf', NOW, 'LIMIT', 0, 1)
  if #hs == 0 then return nil end
  local h = hs[1]
  for _, u in ipairs(redis.call('ZRANGEBYSCORE', nbk(h), '-inf', NOW, 'LIMIT', 0, 256)) do
    redis.call('ZREM', nbk(h), u)
    redis.call('ZADD', qk(h), score(redis.call('HGET', K_U, u)), u)
  end
  local s = hostState(h)
  local admit = true
  if MAXSITES > 0 and not redis.call('HGET', K_SA, h) then
    if redis.call('HLEN', K_SA) < MAXSITES then
      redis.call('HSET', K_SA, h, 'a')
      redis.call('HSET', hk(h), 's', 0)
    else
      waitSite(h)
      admit = false
    end
  end
  if admit and s.i < CONC and s.b < CONC and s.w == 0 and politeAt(s) <= NOW then
    local top = redis.call('ZPOPMIN', qk(h))
    if #top > 0 then
      local u = top[1]
      local v = restate(redis.call('HGET', K_U, u), 'i')
      redis.call('HSET', K_U, u, v)
      local tok = redis.call('INCR', P .. 'tok')
      putClaim(u, {t = tok, p = INST, h = h, r = h, w = ''})
      redis.call('SADD', pck(INST), u)
      redis.call('HINCRBY', hk(h), 'i', 1)
      redis.call('HINCRBY', hk(h), 'b', 1)
      redis.call('HINCRBY', K_N, 'q', -1)
      redis.call('HINCRBY', K_N, 'i', 1)
      if MAXSITES > 0 and redis.call('HINCRBY', hk(h), 's', 1) >= MAXINTER and MAXINTER > 0 and
          redis.call('ZCARD', K_SW) > 0 then
        redis.call('HSET', K_SA, h, 'r')
        redis.call('HSET', hk(h), 's', 0)
        waitSite(h)
      end
      sched(h)
      return {1, u, v, tok}
    end
  end
  sched(h)
end
return nil
end

local lv = levels()
local res
if lv.n <= 1 then
  res = claimIn(K_HOSTS)
else
  -- The level by the pick among the levels with a ready host; the next one when it has
  -- nothing claimable now.
  local K_LV = P .. 'lv'
  local function share(l) return tonumber(redis.call('HGET', K_LV, 's' .. l)) or 1 end
  local tried = {}
  while not res do
    local active = {}
    for l = 1, lv.n do
      if not tried[l] and #redis.call('ZRANGEBYSCORE', hostsKey(l), '-inf', NOW, 'LIMIT', 0, 1) > 0 then
        active[#active + 1] = l
      end
    end
    if #active == 0 then break end
    local pick = active[1]
    if lv.p == 'rr' then
      local nx = tonumber(redis.call('HGET', K_LV, 'next')) or 1
      for _, l in ipairs(active) do
        if l >= nx then pick = l; break end
      end
    elseif lv.p == 'wrr' then
      local best = nil
      for _, l in ipairs(active) do
        local v = (tonumber(redis.call('HGET', K_LV, 'c' .. l)) or 0) + share(l)
        if best == nil or v > best then best, pick = v, l end
      end
    end
    res = claimIn(hostsKey(pick))
    if res then
      if lv.p == 'rr' then
        redis.call('HSET', K_LV, 'next', pick % lv.n + 1)
      elseif lv.p == 'wrr' then
        -- Smooth weighted round robin among the levels that could be picked; a level that
        -- could not keeps no credit.
        local isActive, total = {}, 0
        for _, l in ipairs(active) do isActive[l] = true end
        for l = 1, lv.n do
          if isActive[l] then
            redis.call('HINCRBY', K_LV, 'c' .. l, share(l))
            total = total + share(l)
          else
            redis.call('HSET', K_LV, 'c' .. l, 0)
          end
        end
        redis.call('HINCRBY', K_LV, 'c' .. pick, -total)
      end
    else
      tried[pick] = true
    end
  end
end
if res then return res end
local cnt = redis.call('HMGET', K_N, 'q', 'i')
local q, i = tonumber(cnt[1]) or 0, tonumber(cnt[2]) or 0
if q <= 0 and i <= 0 then return {2} end
local wait = -1
local keys = {K_HOSTS}
if lv.n > 1 then
  keys = {}
  for l = 1, lv.n do keys[l] = hostsKey(l) end
end
for _, k in ipairs(keys) do
  local nh = redis.call('ZRANGE', k, 0, 0, 'WITHSCORES')
  if #nh > 0 then
    local w = math.max(tonumber(nh[2]) - NOW, 0)
    if wait < 0 or w < wait then wait = w end
  end
end
if i > 0 then
  local np = redis.call('ZRANGE', K_PROCS, 0, 0, 'WITHSCORES')
  if #np > 0 then
    local w = math.max(tonumber(np[2]) - NOW, 0)
    if wait < 0 or w < wait then wait = w end
  end
end
return {0, wait}
`)

// scriptFinish finishes a claim. ARGV[8]: url, [9]: token, [10]: state (d done, f failed, q
// retry), [11]: record, [12]: queue priority (retry), [13]: µs until the retry may be claimed
// (retry; <= 0: at once). It returns 0 when the claim is not this instance's (its lease
// expired and its URL was claimed again). The claim's token is kept as finished (P fin:TOKEN)
// for finTTL seconds, so that the same call sent again (go-redis retries a call whose reply was
// lost with its connection, as when the server restarts) returns 1 instead of 0.
// finTTL is how long, in seconds, a finished claim's token is remembered (scriptFinish): longer
// than go-redis takes retrying a call.
const finTTL = "300"

var scriptFinish = script(`
local u, st, rec = ARGV[8], ARGV[10], ARGV[11]
local fin = P .. 'fin:' .. ARGV[9]
local c = getClaim(u, ARGV[9])
if not c then return redis.call('EXISTS', fin) end
redis.call('SET', fin, '1', 'EX', ` + finTTL + `)
local touched = {}
release(u, c, touched)
if st == 'q' then
  local sc = tonumber(ARGV[12]) * PRIO + redis.call('INCR', K_SEQ)
  redis.call('HSET', K_U, u, header('q', sc) .. rec)
  local off = tonumber(ARGV[13])
  if off > 0 then
    redis.call('ZADD', nbk(c.h), NOW + off, u)
  else
    redis.call('ZADD', qk(c.h), sc, u)
  end
  redis.call('HINCRBY', K_N, 'q', 1)
else
  redis.call('HSET', K_U, u, header(st, 0) .. rec)
  redis.call('HINCRBY', K_N, st, 1)
end
schedAll(touched)
return 1
`)

// scriptPace is one attempt of Pace. ARGV[8]: url, [9]: token, [10]: host. It returns {1}
// when the request may go (and counts it), {0, µs to wait (-1: for a slot)} when not, {-1}
// for a claim that is not this instance's.
var scriptPace = script(`
local u, h = ARGV[8], ARGV[10]
local c = getClaim(u, ARGV[9])
if not c then return {-1} end
local touched = {}
if c.r ~= '' and c.r ~= h then
  endReq(c.r, NOW + 1)
  touched[c.r] = true
  c.r = ''
end
if c.w ~= '' and c.w ~= h then
  redis.call('HINCRBY', hk(c.w), 'w', -1)
  touched[c.w] = true
  c.w = ''
end
local needSlot = c.r == ''
local s = hostState(h)
local blocked = needSlot and s.b >= CONC
local wait = -1
local at = politeAt(s)
if at > NOW then
  blocked = true
  wait = at - NOW
end
if blocked then
  if needSlot and c.w == '' then
    redis.call('HINCRBY', hk(h), 'w', 1)
    c.w = h
    touched[h] = true
  end
else
  if c.w ~= '' then
    redis.call('HINCRBY', hk(c.w), 'w', -1)
    touched[c.w] = true
    c.w = ''
  end
  if needSlot then
    redis.call('HINCRBY', hk(h), 'b', 1)
    c.r = h
    touched[h] = true
  end
end
putClaim(u, c)
schedAll(touched)
if blocked then return {0, wait} end
return {1}
`)

// scriptUnqueue undoes the wait of a Pace that gave up. ARGV[8]: url, [9]: token.
var scriptUnqueue = script(`
local c = getClaim(ARGV[8], ARGV[9])
if not c or c.w == '' then return 0 end
redis.call('HINCRBY', hk(c.w), 'w', -1)
local h = c.w
c.w = ''
putClaim(ARGV[8], c)
sched(h)
return 1
`)

// scriptEnded ends a claim's request in progress. ARGV[8]: url, [9]: token, [10]: µs since
// the request ended (by the caller's clock). It returns 0 for a claim not this instance's.
var scriptEnded = script(`
local c = getClaim(ARGV[8], ARGV[9])
if not c then return 0 end
if c.r ~= '' then
  local h = c.r
  endReq(h, NOW - tonumber(ARGV[10]))
  c.r = ''
  putClaim(ARGV[8], c)
  sched(h)
end
return 1
`)

// scriptHost changes a host's politeness. ARGV[8]: host, [9]: what (d: robots delay, o:
// operator's delay, -1 removes it; k: backoff), [10]: µs (k: from now).
var scriptHost = script(`
local h, what, v = ARGV[8], ARGV[9], tonumber(ARGV[10])
if what == 'o' and v < 0 then
  redis.call('HDEL', hk(h), 'o')
elseif what == 'k' then
  local k = tonumber(redis.call('HGET', hk(h), 'k')) or 0
  if NOW + v > k then redis.call('HSET', hk(h), 'k', string.format('%d', NOW + v)) end
else
  redis.call('HSET', hk(h), what, string.format('%d', v))
end
sched(h)
return 1
`)

// scriptPriorURLs stores earlier captures by URL, keeping the later captured. ARGV[8..]:
// url, value (starting with the capture time, 20 digits), for each.
var scriptPriorURLs = script(`
local k = P .. 'pu'
for j = 8, #ARGV, 2 do
  local old = redis.call('HGET', k, ARGV[j])
  if not old or string.sub(ARGV[j+1], 1, 20) > string.sub(old, 1, 20) then
    redis.call('HSET', k, ARGV[j], ARGV[j+1])
  end
end
return 1
`)

// scriptPutMeta stores a metadata entry. ARGV[8]: key, [9]: value.
var scriptPutMeta = script(`
redis.call('HSET', P .. 'm', ARGV[8], ARGV[9])
redis.call('ZADD', P .. 'mk', 0, ARGV[8])
return 1
`)

// scriptResched schedules again the hosts waiting for their delay (SetDelay: the delay
// changed).
var scriptResched = script(`
local n = 0
local keys = {K_HOSTS}
local lv = levels()
for l = 1, lv.n do keys[#keys + 1] = hostsKey(l) end
for _, k in ipairs(keys) do
  for _, h in ipairs(redis.call('ZRANGEBYSCORE', k, '(' .. NOW, '+inf')) do
    sched(h)
    n = n + 1
  end
end
return n
`)

// scriptLevels sets the crawl's priority levels (ARGV[8]: levels, [9]: default level, [10]:
// pick, [11]: the setting's signature, [12..]: the shares of levels 1, 2, ...) and, when they
// changed, puts every ready host (of the levels set before) where the new setting has it.
var scriptLevels = script(`
local K_LV = P .. 'lv'
local old = tonumber(redis.call('HGET', K_LV, 'n')) or 0
if redis.call('HGET', K_LV, 'sig') == ARGV[11] then return 0 end
redis.call('DEL', K_LV)
redis.call('HSET', K_LV, 'n', ARGV[8], 'd', ARGV[9], 'p', ARGV[10], 'sig', ARGV[11])
for j = 12, #ARGV do redis.call('HSET', K_LV, 's' .. (j - 11), ARGV[j]) end
local hosts = {}
local keys = {K_HOSTS}
for l = 1, old do keys[#keys + 1] = hostsKey(l) end
for _, k in ipairs(keys) do
  for _, h in ipairs(redis.call('ZRANGE', k, 0, -1)) do hosts[#hosts + 1] = h end
  redis.call('DEL', k)
end
for _, h in ipairs(hosts) do
  redis.call('HDEL', hk(h), 'l')
  sched(h)
end
return #hosts
`)
