# steps.gp -- closed-form vs simulated step time per device type (bars).
# Run by `hetsim plot RUN.h5 --kind steps -o F`, which passes with -e:
#   dat    rows "\"label\" closed sim" (times in tunit), one per type and
#          a last row for the whole cluster
#   tunit  time unit; ttl: title; W, H: size; term, out: terminal and file
eval sprintf("set terminal %s size %d,%d noenhanced font 'Sans,10' background rgb 'white'", term, W, H)
set output out
set title ttl font ",11"
set style data histograms
set style histogram clustered gap 1.5
set style fill solid 0.9 border lc rgb "#303030"
set boxwidth 0.9
set ylabel sprintf("step time (%s)", tunit)
set yrange [0:*]
set offsets 0, 0, graph 0.08, 0
set grid ytics lc rgb "#e4e4e4"
set xtics nomirror scale 0
# the legend: one block right of the bars, read top to bottom
set rmargin at screen 0.68
set key at screen 0.695, graph 1 left top vertical Left reverse samplen 2 \
    spacing 1.3 font ",9"
plot dat using 2:xtic(1) title "source formula (S400): max T(i)" lc rgb "#377eb8", \
     '' using 3 title "replay (recommended): simulated step" \
         lc rgb "#e41a1c", \
     keyentry with points ps 0 \
         title "T(i) = max(t_dl, T_fwd + t_b1 + T_ar(i))", \
     '' using ($0 - 0.18):2:(sprintf("%.4g", $2)) with labels offset 0,0.7 \
         font ",8" notitle, \
     '' using ($0 + 0.18):3:(sprintf("%.4g", $3)) with labels offset 0,0.7 \
         font ",8" notitle
