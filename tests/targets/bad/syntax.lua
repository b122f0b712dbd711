return target "broken" {
  clock_mhz = 100,
  memory = { L2 = { size = 1024 } }
  cpu = {},
}
