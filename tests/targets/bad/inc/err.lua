-- included by include_error.lua: an error on line 3 of this file
local t = {}
return t.missing.field
