-- Tests of deploy/argocd/health.lua against sample SchedulerProfile statuses.
-- Run: deploy/argocd/test/run   (or: lua5.4 deploy/argocd/test/health_test.lua deploy/argocd/health.lua)
local healthScript = arg[1] or "deploy/argocd/health.lua"

local function condition(conditionType, status, reason, message)
  return { type = conditionType, status = status, reason = reason, message = message }
end

local function profile(generation, status)
  return {
    apiVersion = "schedulerops.dev/v1beta1",
    kind = "SchedulerProfile",
    metadata = { name = "label-priority", generation = generation },
    status = status,
  }
end

local allAvailable = {
  condition("ConfigValid", "True", "Valid", "The configuration was accepted"),
  condition("ExtenderAvailable", "True", "DeploymentAvailable", "2/2 extender replicas available"),
  condition("SchedulerAvailable", "True", "DeploymentAvailable", "1/1 scheduler replicas available"),
  condition("Ready", "True", "Ready", "Scheduler label-priority is serving"),
}

local cases = {
  {
    name = "ready at the current generation is Healthy",
    obj = profile(3, { observedGeneration = 3, conditions = allAvailable }),
    status = "Healthy",
    message = "Ready: Scheduler label-priority is serving",
  },
  {
    name = "no status yet is Progressing",
    obj = profile(1, nil),
    status = "Progressing",
    message = "Waiting for the operator to report status",
  },
  {
    name = "a fresh profile (the CRD's status default, nothing observed yet) is Progressing",
    obj = profile(1, { observedGeneration = 0, conditions = {} }),
    status = "Progressing",
    message = "Waiting for the operator to observe generation 1 (observed 0)",
  },
  {
    name = "a stale observedGeneration is Progressing even when Ready is True",
    obj = profile(4, { observedGeneration = 3, conditions = allAvailable }),
    status = "Progressing",
    message = "Waiting for the operator to observe generation 4 (observed 3)",
  },
  {
    name = "status without observedGeneration is Progressing",
    obj = profile(1, { conditions = allAvailable }),
    status = "Progressing",
    message = "Waiting for the operator to observe generation 1 (observed none)",
  },
  {
    name = "an invalid config is Degraded with the operator's reason",
    obj = profile(2, {
      observedGeneration = 2,
      conditions = {
        condition("ConfigValid", "False", "InvalidConfig", "spec.weight must be positive"),
        condition("Ready", "False", "InvalidConfig", "spec.weight must be positive"),
      },
    }),
    status = "Degraded",
    message = "InvalidConfig: spec.weight must be positive",
  },
  {
    name = "a schedulerName conflict is Degraded",
    obj = profile(1, {
      observedGeneration = 1,
      conditions = {
        condition("Ready", "False", "SchedulerNameConflict", "also claimed by team-b/other"),
        condition("ConfigValid", "False", "SchedulerNameConflict", "schedulerName x is also claimed by team-b/other"),
      },
    }),
    status = "Degraded",
    message = "SchedulerNameConflict: schedulerName x is also claimed by team-b/other",
  },
  {
    name = "waiting for the extender is Progressing",
    obj = profile(1, {
      observedGeneration = 1,
      conditions = {
        condition("ConfigValid", "True", "Valid", ""),
        condition("ExtenderAvailable", "False", "DeploymentUnavailable", "0/2 replicas available"),
        condition("Ready", "False", "WaitingForExtender", "Waiting for the extender Deployment"),
      },
    }),
    status = "Progressing",
    message = "WaitingForExtender: Waiting for the extender Deployment",
  },
  {
    name = "rolling out the scheduler is Progressing",
    obj = profile(5, {
      observedGeneration = 5,
      conditions = { condition("Ready", "False", "RollingOutScheduler", nil) },
    }),
    status = "Progressing",
    message = "RollingOutScheduler",
  },
  {
    name = "waiting for a rollout slot is Progressing",
    obj = profile(2, {
      observedGeneration = 2,
      conditions = { condition("Ready", "False", "WaitingForRolloutSlot", "A change restarts this profile's pods") },
    }),
    status = "Progressing",
    message = "WaitingForRolloutSlot: A change restarts this profile's pods",
  },
  {
    name = "Ready Unknown is Progressing",
    obj = profile(1, { observedGeneration = 1, conditions = { condition("Ready", "Unknown", nil, "Reconciling") } }),
    status = "Progressing",
    message = "Reconciling",
  },
  {
    name = "no Ready condition yet is Progressing",
    obj = profile(1, { observedGeneration = 1, conditions = {} }),
    status = "Progressing",
    message = "Waiting for the Ready condition",
  },
  {
    name = "Ready False for another reason is Degraded",
    obj = profile(2, {
      observedGeneration = 2,
      conditions = {
        condition("ConfigValid", "True", "Valid", ""),
        condition("SchedulerAvailable", "False", "DeploymentUnavailable", "0/1 replicas available"),
        condition("Ready", "False", "SchedulerUnavailable", "The scheduler Deployment has no available replica"),
      },
    }),
    status = "Degraded",
    message = "SchedulerUnavailable: The scheduler Deployment has no available replica",
  },
}

local failures = 0
for _, case in ipairs(cases) do
  obj = case.obj
  local ok, hs = pcall(dofile, healthScript)
  if not ok then
    failures = failures + 1
    print("FAIL " .. case.name .. ": error " .. tostring(hs))
  elseif hs.status ~= case.status or hs.message ~= case.message then
    failures = failures + 1
    print(string.format("FAIL %s: got %s %q, want %s %q", case.name, tostring(hs.status), tostring(hs.message),
      case.status, case.message))
  else
    print("ok   " .. case.name)
  end
end
print(string.format("%d passed, %d failed", #cases - failures, failures))
os.exit(failures == 0 and 0 or 1)
