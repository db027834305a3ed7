-- New projects are unlimited (store.DefaultPlan); projects older versions
-- put on the default trial plan (1,000 mentions a month, posts over it
-- dropped) move to it too. Nothing tells a default trial from one an
-- operator chose, and a self-hoster never chose a quota: an operator who
-- resells plans sets them again with earshot project set-plan (CHANGELOG).
UPDATE projects SET plan = 'unlimited' WHERE plan = 'trial';
