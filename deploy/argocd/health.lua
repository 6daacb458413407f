-- Argo CD health check for schedulerops.dev/SchedulerProfile.
-- Argo CD runs this with the live object in `obj` and expects a table {status=..., message=...}
-- with status Healthy, Progressing, Degraded, Suspended or Missing.
-- Install: resource.customizations.health.schedulerops.dev_SchedulerProfile in argocd-cm (deploy/README.md).
local hs = {}

-- Reasons the operator sets on Ready=False while it is still making progress (no action needed).
local waitingReasons = {
  WaitingForExtender = true,
  RollingOutScheduler = true,
  WaitingForRolloutSlot = true,
}

local function findCondition(conditions, conditionType)
  if conditions == nil then
    return nil
  end
  for _, condition in ipairs(conditions) do
    if condition.type == conditionType then
      return condition
    end
  end
  return nil
end

local function describe(condition, fallback)
  local reason = condition.reason or ""
  local message = condition.message or ""
  if reason ~= "" and message ~= "" then
    return reason .. ": " .. message
  elseif message ~= "" then
    return message
  elseif reason ~= "" then
    return reason
  end
  return fallback
end

if obj.status == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the operator to report status"
  return hs
end

local generation = obj.metadata and obj.metadata.generation
local observed = obj.status.observedGeneration
if generation ~= nil and (observed == nil or observed < generation) then
  hs.status = "Progressing"
  hs.message = "Waiting for the operator to observe generation " .. tostring(generation) ..
    " (observed " .. tostring(observed or "none") .. ")"
  return hs
end

local conditions = obj.status.conditions
local configValid = findCondition(conditions, "ConfigValid")
if configValid ~= nil and configValid.status == "False" then
  hs.status = "Degraded"
  hs.message = describe(configValid, "The profile's configuration is invalid")
  return hs
end

local ready = findCondition(conditions, "Ready")
if ready == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the Ready condition"
  return hs
end
if ready.status == "True" then
  hs.status = "Healthy"
  hs.message = describe(ready, "Ready")
  return hs
end
if ready.status == "Unknown" or waitingReasons[ready.reason] then
  hs.status = "Progressing"
  hs.message = describe(ready, "Not ready yet")
  return hs
end
hs.status = "Degraded"
hs.message = describe(ready, "Not ready")
return hs
