-- wrk script: POSTs the body template given after `--` with its placeholders filled per
-- request (same names as bench/load/request.ts: {{seq}} {{uuid}} {{rand}} {{worker}}; the
-- time placeholders become the epoch second), and prints one line `WRK_JSON {...}` at the end.
-- Used by bench/baselines.ts as the cross-check that bench/load is not the bottleneck.
--   wrk -t1 -c64 -d10s -s bench/load/wrk-post.lua http://127.0.0.1:PORT -- body.json ['/path/{{seq}}']
-- The optional second argument is a path template (default: the URL's path).

local threads = {}
local counter = 1

function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

local parts = {}
local path_parts = nil
local n = 0

local function uuid()
  local t = "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx"
  return (string.gsub(t, "[xy]", function(c)
    local v = (c == "x") and math.random(0, 15) or math.random(8, 11)
    return string.format("%x", v)
  end))
end

-- Splits a template once into literal / placeholder parts so request() only concatenates.
local function compile(text)
  local out, pos = {}, 1
  for s, name, e in text:gmatch("()%{%{(%w+_?%w*)%}%}()") do
    table.insert(out, { lit = text:sub(pos, s - 1) })
    table.insert(out, { ph = name })
    pos = e
  end
  table.insert(out, { lit = text:sub(pos) })
  return out
end

function init(args)
  local f = assert(io.open(args[1], "r"), "body template file expected after --")
  local text = f:read("*a"):gsub("%s+$", "")
  f:close()
  parts = compile(text)
  if args[2] then path_parts = compile(args[2]) end
  math.randomseed(os.time() + (tid or 0))
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

local function fill(tpl)
  local out = {}
  for i, p in ipairs(tpl) do
    if p.lit then out[i] = p.lit
    elseif p.ph == "seq" then out[i] = "t" .. tostring(tid) .. "-" .. n
    elseif p.ph == "uuid" then out[i] = uuid()
    elseif p.ph == "rand" then out[i] = tostring(math.random(0, 999999999))
    elseif p.ph == "worker" then out[i] = tostring(tid)
    else out[i] = tostring(os.time()) end
  end
  return table.concat(out)
end

function request()
  n = n + 1
  local path = path_parts and fill(path_parts) or nil
  return wrk.format(nil, path, nil, fill(parts))
end

function done(summary, latency, requests)
  local e = summary.errors
  local errors = e.connect + e.read + e.write + e.timeout
  io.write(string.format(
    'WRK_JSON {"requests":%d,"duration_s":%.3f,"throughput_rps":%.1f,"non_2xx_3xx":%d,"socket_errors":%d,' ..
    '"latency":{"mean_ms":%.3f,"p50_ms":%.3f,"p90_ms":%.3f,"p99_ms":%.3f,"p999_ms":%.3f,"max_ms":%.3f}}\n',
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6), e.status, errors,
    latency.mean / 1000, latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency:percentile(99.9) / 1000, latency.max / 1000))
end
