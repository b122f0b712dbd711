/* nodevice.c - the device model of an engine that has no device: its
   templates compute in C on the host (tests/targets/direct and folded, a
   first draft of an engine before its device model exists). It provides
   the three functions the compiler calls and counts no cycles. */
static HTC__UNUSED void htc__dev_sync(int32_t layer) { (void)layer; }
static HTC__UNUSED void htc__dev_cpu(int32_t layer, double units, double cycles_per_unit)
{
    (void)layer; (void)units; (void)cycles_per_unit;
}
static HTC__UNUSED void htc__dev_reset(void) { }
