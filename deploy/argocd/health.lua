-- Argo CD health of a Modelplane XR (docs/argocd.md). Shared by every kind:
-- each argocd-cm key is `local rules = {...}` for its kind followed by this
-- script (npm run argocd:generate). Uses only the base and table libraries,
-- the ones Argo CD opens for a health check from argocd-cm.
local hs = {}

local function conditions()
  if type(obj.status) ~= "table" or type(obj.status.conditions) ~= "table" then
    return nil
  end
  if next(obj.status.conditions) == nil then
    return nil
  end
  return obj.status.conditions
end

local function find(list, t)
  for _, c in ipairs(list) do
    if type(c) == "table" and c.type == t then
      return c
    end
  end
  return nil
end

local function field(path)
  local v = obj
  for _, k in ipairs(path) do
    if type(v) ~= "table" then
      return nil
    end
    v = v[k]
  end
  return v
end

local function text(v)
  if type(v) == "string" and v ~= "" then
    return v
  end
  return nil
end

local function describe(c)
  return tostring(c.type) .. " is " .. tostring(c.status) .. ": " .. tostring(c.reason)
end

local function matches(list, test)
  if test.field ~= nil then
    return field(test.field) == test.equals, nil
  end
  local c = find(list, test.type)
  if c == nil then
    return false, nil
  end
  if test.status ~= nil and c.status ~= test.status then
    return false, nil
  end
  if test.reasons ~= nil then
    local any = false
    for _, r in ipairs(test.reasons) do
      if c.reason == r then
        any = true
      end
    end
    if not any then
      return false, nil
    end
  end
  return true, c
end

local function apply(list, rule)
  local first = nil
  local withMessage = nil
  for _, test in ipairs(rule.when) do
    local ok, c = matches(list, test)
    if not ok then
      return nil
    end
    if c ~= nil and first == nil then
      first = c
    end
    if c ~= nil and withMessage == nil and text(c.message) ~= nil then
      withMessage = c
    end
  end
  local message = nil
  if withMessage ~= nil then
    message = withMessage.message
  elseif rule.messageField ~= nil and text(field(rule.messageField)) ~= nil then
    message = field(rule.messageField)
  elseif rule.text ~= nil then
    message = rule.text
  elseif first ~= nil then
    message = describe(first)
  end
  return { status = rule.health, message = message }
end

local list = conditions()
if list == nil then
  hs.status = "Progressing"
  hs.message = rules.waiting
  return hs
end

local synced = find(list, "Synced")
if synced ~= nil and synced.status == "False" then
  hs.status = "Degraded"
  hs.message = text(synced.message) or describe(synced)
  return hs
end

for _, rule in ipairs(rules.rules) do
  local out = apply(list, rule)
  if out ~= nil then
    return out
  end
end

local ready = find(list, "Ready")
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  local message = nil
  if rules.healthy ~= nil and rules.healthy.condition ~= nil then
    local c = find(list, rules.healthy.condition)
    if c ~= nil then
      message = text(c.message)
    end
  elseif rules.healthy ~= nil and rules.healthy.field ~= nil then
    message = text(field(rules.healthy.field))
  end
  hs.message = message or text(ready.message) or "Ready"
  return hs
end

hs.status = "Progressing"
if ready ~= nil then
  hs.message = text(ready.message) or describe(ready)
else
  hs.message = "Waiting for Ready"
end
return hs
