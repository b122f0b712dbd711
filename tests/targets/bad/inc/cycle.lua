-- included by include_cycle.lua: includes itself again while it loads
return include "cycle.lua"
