# insncount.awk - merges the counts the qemu plugin (insncount.c) prints at
# exit into the "prof:" lines of a firmware example that has no counter of
# its own (platform.c prints "region N" where the count belongs), with the
# MVE instructions and beats of each region when the plugin counted them.
/^insncount: region [0-9]+: [0-9]+$/ { sub(":", "", $3); count[$3] = $4; next }
/^insncount: region [0-9]+ mve: [0-9]+ beats: [0-9]+$/ { mve[$3] = $5; beats[$3] = $7; next }
/^insncount: total / { total = $3; next }
{ line[n++] = $0 }
# ", M MVE (B beats)" when the plugin counted MVE instructions (Cortex-M55)
function vec(r) { return (r in mve) ? sprintf(", %s MVE (%s beats)", mve[r], beats[r]) : "" }
END {
    for (i = 0; i < n; i++) {
        $0 = line[i]
        if ($1 == "prof:" && $2 == "layer" && $5 == "region")
            printf "prof: layer %2d %-10s %12s instructions%s\n", $3, $4, ($6 in count) ? count[$6] : "?", vec($6)
        else if ($1 == "prof:" && $3 == "total" && $4 == "region")
            printf "prof: %s total %s instructions on %s%s\n", $2, ($5 in count) ? count[$5] : "?", $7, vec($5)
        else
            print line[i]
    }
    if (total != "") printf "prof: whole program %s instructions (startup and printing included)\n", total
}
