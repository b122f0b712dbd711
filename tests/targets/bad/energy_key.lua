-- an engine's energy table takes pj_per_mac, pj_per_elem, pj_per_cycle, static_mw only
return target "t" {
  clock_mhz = 100,
  memory = { L2 = { size = 65536 } },
  cpu = {
    memory = "L2", requant = { "tflite" }, ops = { conv2d = {} },
    energy = { pj_per_mac = 1,
               pj_per_flop = 2 },
  },
}
