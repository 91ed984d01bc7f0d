# sweep.gp -- step time against the number of devices N.
# Run by `hetsim plot --kind sweep SWEEP.csv -o F`, which passes with -e:
#   dat    rows "n closed sim" (times in tunit)
#   logx   1: logarithmic N axis; xlo, xhi: the N axis' range
#   tunit, ttl, W, H, term, out as elsewhere
eval sprintf("set terminal %s size %d,%d noenhanced font 'Sans,10' background rgb 'white'", term, W, H)
set output out
set title ttl font ",11"
set xlabel "devices in the ring (N)"
set ylabel sprintf("step time (%s)", tunit)
set yrange [0:*]
set grid lc rgb "#e4e4e4"
set key top left
if (logx) set logscale x
set xrange [xlo:xhi]
plot dat using 1:2 with linespoints pt 7 ps 0.8 lw 2 lc rgb "#377eb8" \
         title "closed form", \
     dat using 1:3 with linespoints pt 5 ps 0.8 lw 2 lc rgb "#e41a1c" \
         title "replay (simulated)"
