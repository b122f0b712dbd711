/* tests/targets/direct/direct.c - the "direct" test engine has no device:
   its template computes in C. The device hooks every engine provides. */
static HTC__UNUSED int32_t htc__direct_fc_marker;
static HTC__UNUSED void htc__dev_sync(int32_t layer) { (void)layer; }
static HTC__UNUSED void htc__dev_cpu(int32_t layer, double units, double cycles_per_unit)
{
    (void)layer; (void)units; (void)cycles_per_unit;
}
static HTC__UNUSED void htc__dev_reset(void) { }
